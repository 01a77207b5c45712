package publish

import (
	"context"
	"errors"
	"fmt"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// A node relists with one call (mqtt.ViewPath), answered here from the
// index: the changes to its view since the revision it holds, read from
// the history exactly as a catch-up is (catchup.go), or, when that history
// is gone or the node holds nothing, its whole view: the pods the index
// places on it, read at the index's revision, and the referenced objects
// the index holds. Either way nothing else is read or decoded.

// Errors View returns.
var (
	// ErrNotRunning: the publisher is not started, or stopped.
	ErrNotRunning = errors.New("publisher is not running")
	// ErrBehind: the node holds a revision this publisher has not reached
	// yet; ask again shortly.
	ErrBehind = errors.New("the publisher has not reached the node's revision yet")
)

// viewReq is one relist waiting for the dispatcher.
type viewReq struct {
	ctx   context.Context
	node  string
	since int64
	reply chan viewAnswer // buffered: the dispatcher never waits
}

// viewAnswer is the dispatcher's answer: a delta, or what a full view
// needs (pods still to read at rev).
type viewAnswer struct {
	delta *mqtt.Event
	rev   int64
	pods  []mqtt.ObjectRef
	refs  []change
	err   error
}

// View answers a node's relist: its view now, as the changes since since
// when the datastore still has that history, else whole.
func (p *Publisher) View(ctx context.Context, node string, since int64) (*mqtt.View, error) {
	if p.ctx == nil {
		return nil, ErrNotRunning
	}
	for range 3 { // a full view read just as its revision was compacted is asked again
		ans, err := p.askView(ctx, node, since)
		if err != nil {
			return nil, err
		}
		if ans.delta != nil {
			return &mqtt.View{Rev: ans.delta.Rev, Since: since, Changes: ans.delta.Changes}, nil
		}
		v, err := p.fullView(ctx, ans)
		if !errors.Is(err, datastore.ErrCompacted) {
			return v, err
		}
	}
	return nil, fmt.Errorf("view of %s: the revision kept being compacted", node)
}

func (p *Publisher) askView(ctx context.Context, node string, since int64) (viewAnswer, error) {
	req := viewReq{ctx: ctx, node: node, since: since, reply: make(chan viewAnswer, 1)}
	select {
	case p.views <- req:
	case <-ctx.Done():
		return viewAnswer{}, ctx.Err()
	case <-p.ctx.Done():
		return viewAnswer{}, ErrNotRunning
	}
	select {
	case ans := <-req.reply:
		return ans, ans.err
	case <-ctx.Done():
		return viewAnswer{}, ctx.Err()
	case <-p.ctx.Done():
		return viewAnswer{}, ErrNotRunning
	}
}

// fullView reads the pods of ans at its revision (one key each, no
// decoding) and puts the whole view together.
func (p *Publisher) fullView(ctx context.Context, ans viewAnswer) (*mqtt.View, error) {
	changes := ans.refs
	for _, ref := range ans.pods {
		key := registryPrefix + "core/pods/" + ref.Namespace + "/" + ref.Name
		page, err := p.cfg.Store.List(ctx, key, datastore.ListOptions{Revision: ans.rev, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("read pod %s at %d: %w", ref, ans.rev, err)
		}
		if len(page.Items) == 0 || page.Items[0].Key != key { // the key sorts first of its prefix
			return nil, fmt.Errorf("read pod %s at %d: not in the store", ref, ans.rev)
		}
		changes = append(changes, change{typ: mqtt.Added, ref: ref, kv: page.Items[0]})
	}
	v := &mqtt.View{Rev: ans.rev, Full: true, Changes: make([]mqtt.Change, 0, len(changes))}
	enc := encoder{}
	for _, c := range changes {
		mc, err := enc.change(c)
		if err != nil {
			return nil, err
		}
		v.Changes = append(v.Changes, mc)
	}
	return v, nil
}

// startView answers req at once, or starts reading the history it needs;
// dispatcher only.
func (p *Publisher) startView(req viewReq) {
	switch {
	case req.since > p.processed:
		req.reply <- viewAnswer{err: fmt.Errorf("%w (node at %d, publisher at %d)", ErrBehind, req.since, p.processed)}
	case req.since == p.processed:
		req.reply <- viewAnswer{delta: &mqtt.Event{Type: mqtt.EventChanges, Rev: p.processed, Prev: req.since}}
	case req.since <= 0 || p.processed-req.since > p.cfg.MaxReplay:
		req.reply <- p.wholeView(req.node)
	default:
		n := p.node(req.node)
		c := p.newWalk(n, req.since, req.reply)
		cancel := c.cancel
		stop := context.AfterFunc(req.ctx, cancel) // the caller gave up
		c.cancel = func() { stop(); cancel() }
		n.views = append(n.views, c)
	}
}

// wholeView is what a full view of node needs from the index now.
func (p *Publisher) wholeView(node string) viewAnswer {
	pods, refs := p.idx.nodeView(node)
	return viewAnswer{rev: p.processed, pods: pods, refs: refs}
}

// finishView turns a finished history read into the view's answer.
func (p *Publisher) finishView(n *nodeState, res walkResult) {
	var c *catchup
	for i, v := range n.views {
		if v.gen == res.gen {
			c = v
			n.views = append(n.views[:i:i], n.views[i+1:]...)
			break
		}
	}
	if c == nil {
		return
	}
	c.cancel()
	switch {
	case res.err != nil:
		c.answer(viewAnswer{err: res.err})
	case res.relist: // compacted: the whole view instead
		c.answer(p.wholeView(n.name))
	default:
		ev, err := p.catchupEvent(n.name, res, c)
		c.answer(viewAnswer{delta: ev, err: err})
	}
}

// dropViews fails every view being built (the index was rebuilt).
func (p *Publisher) dropViews(n *nodeState) {
	for _, c := range n.views {
		c.answer(viewAnswer{err: errors.New("the publisher reloaded its index; ask again")})
		c.cancel()
	}
	n.views = nil
}
