package publish

import (
	"context"
	"fmt"
	"sort"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// A catch-up brings a node from revision `from` to the dispatcher's
// current revision in one Event (Prev = from). A goroutine reads the
// history (from, upto] and notes which objects of the node's view were
// touched; meanwhile the dispatcher records the node's live changes
// instead of queueing them. When the walk is done, the dispatcher sends,
// for every touched object, its current state from the index (MODIFIED)
// or DELETED when it is no longer in the node's view. Objects not touched
// since `from` are what the node already holds.
type catchup struct {
	gen    uint64
	from   int64
	upto   int64
	cancel context.CancelFunc
	live   map[mqtt.ObjectRef]*datastore.KeyValue // latest live change per object (nil: left)
	reply  chan viewAnswer                        // a relist's (view.go); nil for a catch-up
}

// answer gives a relist its answer; only the first counts.
func (c *catchup) answer(a viewAnswer) {
	if c.reply == nil {
		return
	}
	select {
	case c.reply <- a:
	default:
	}
}

func (c *catchup) record(changes []change) {
	for _, ch := range changes {
		if ch.typ == mqtt.Deleted {
			c.live[ch.ref] = nil
		} else {
			c.live[ch.ref] = ch.kv
		}
	}
}

// release notes referenced objects the node's pods stopped naming while
// the catch-up was built, objects that do not exist now: the node may
// hold one whose deletion lies in the history being read, when the last
// pod naming it left only now (walk.go sees neither the pod's leaving
// nor, as nothing on the node names it any more, the deletion as the
// node's), so each is listed, and DELETED unless back in the view.
func (c *catchup) release(refs []mqtt.ObjectRef) {
	for _, r := range refs {
		c.live[r] = nil
	}
}

// startCatchup begins a catch-up of n from revision from, replacing one
// that started later; a node too far behind (or holding nothing) relists,
// and so does one ahead of the publisher (see aheadRelist).
func (p *Publisher) startCatchup(n *nodeState, from int64) {
	if from > p.processed {
		p.aheadRelist(n, from)
		return
	}
	if n.catchup != nil {
		if from >= n.catchup.from {
			return
		}
		n.catchup.cancel()
		n.catchup = nil
	}
	if from <= 0 || p.processed-from > p.cfg.MaxReplay {
		p.relist(n)
		return
	}
	n.out.drop()
	if from >= p.processed {
		return // it holds everything there is
	}
	n.catchup = p.newWalk(n, from, nil)
}

// newWalk starts reading the history (from, processed] for node n; the
// result comes back to the dispatcher on p.walks. reply is a relist's.
func (p *Publisher) newWalk(n *nodeState, from int64, reply chan viewAnswer) *catchup {
	p.gen++
	ctx, cancel := context.WithCancel(p.ctx)
	c := &catchup{gen: p.gen, from: from, upto: p.processed, cancel: cancel, reply: reply,
		live: map[mqtt.ObjectRef]*datastore.KeyValue{}}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		res := p.walk(ctx, n.name, c.from, c.upto)
		res.node, res.gen = n.name, c.gen
		select {
		case p.walks <- res:
		case <-ctx.Done():
			c.answer(viewAnswer{err: ctx.Err()}) // the caller gave up, or the publisher stopped
		}
	}()
	return c
}

// finishCatchup turns a finished walk into the catch-up Event.
func (p *Publisher) finishCatchup(res walkResult) {
	n := p.nodes[res.node]
	if n == nil {
		return
	}
	res.relist = res.relist || res.err == nil && p.idx.policyRelist(&res)
	if n.catchup == nil || n.catchup.gen != res.gen {
		p.finishView(n, res) // a relist's, or a superseded catch-up
		return
	}
	c := n.catchup
	n.catchup = nil
	c.cancel()
	if res.err == nil && !res.relist {
		ev, err := p.catchupEvent(n.name, res, c)
		if err == nil {
			p.queue(n, ev, p.cfg.MaxCatchupBytes)
			return
		}
		res.err = err
	}
	if res.err != nil {
		p.log.Warn("catch-up failed; the node will relist", "node", n.name, "from", c.from, "err", res.err)
	}
	p.relist(n)
}

// catchupEvent lists, for every object touched since c.from, its state in
// the node's view now: referenced objects first, then pods, then what left.
func (p *Publisher) catchupEvent(node string, res walkResult, c *catchup) (*mqtt.Event, error) {
	ev := &mqtt.Event{Type: mqtt.EventChanges, Rev: p.processed, Prev: c.from}
	var ups, downs []change
	for _, r := range sortedRefs(p.touched(node, res, c)) {
		in, kv := p.idx.inView(node, r)
		switch {
		case !in:
			downs = append(downs, change{typ: mqtt.Deleted, ref: r})
		case r.Resource != mqtt.ResourcePods:
			ups = append(ups, change{typ: mqtt.Modified, ref: r, kv: kv})
		default:
			if kv = c.live[r]; kv == nil {
				kv = res.pods[r]
			}
			if kv == nil {
				return nil, fmt.Errorf("pod %s is on the node but its value was not seen since %d", r, c.from)
			}
			ups = append(ups, change{typ: mqtt.Modified, ref: r, kv: kv})
		}
	}
	return ev, p.encodeChanges(ev, sortForNode(ups), sortForNode(downs))
}

// touched is every object of the node's view, then or now, that changed
// since c.from: pods seen on the node, what those pod versions referenced,
// referenced objects written meanwhile, and the live changes.
func (p *Publisher) touched(node string, res walkResult, c *catchup) map[mqtt.ObjectRef]bool {
	out := map[mqtt.ObjectRef]bool{}
	for r := range res.refs {
		out[r] = true
	}
	for r := range res.touched {
		if p.idx.users[r][node] > 0 || r.Resource == mqtt.ResourceNodes ||
			isServiceInput(r.Resource) && (p.idx.routed[node] || res.allNodes) {
			out[r] = true
		}
	}
	for r := range res.pods {
		out[r] = true
	}
	if res.allNodes {
		for r := range p.idx.nodes {
			out[r] = true
		}
		for r := range p.idx.svcs {
			out[r] = true
		}
	}
	if p.idx.routed[node] || res.allNodes {
		p.idx.touchRelated(out, res.sliceSvcs)
	}
	for r := range c.live {
		out[r] = true
	}
	return out
}

func (p *Publisher) encodeChanges(ev *mqtt.Event, lists ...[]change) error {
	enc := encoder{}
	for _, list := range lists {
		for _, c := range list {
			mc, err := enc.change(c)
			if err != nil {
				return err
			}
			ev.Changes = append(ev.Changes, mc)
		}
	}
	return nil
}

func sortedRefs(set map[mqtt.ObjectRef]bool) []mqtt.ObjectRef {
	out := make([]mqtt.ObjectRef, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// sortForNode orders upserts so ConfigMaps and Secrets come before pods,
// and deletions so pods go before what they referenced.
func sortForNode(cs []change) []change {
	isPod := func(c change) bool { return c.ref.Resource == mqtt.ResourcePods }
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].typ == mqtt.Deleted {
			return isPod(cs[i]) && !isPod(cs[j])
		}
		return !isPod(cs[i]) && isPod(cs[j])
	})
	return cs
}

// aheadRelist tells a node that holds a revision this publisher never
// issued to relist: the datastore was restored from a snapshot older than
// what the node holds (or belongs to another cluster), so what the node
// holds past the publisher is not the server's history. Within one
// datastore a node can never be ahead: the publisher starts at the store's
// latest revision and the node only holds what was published.
func (p *Publisher) aheadRelist(n *nodeState, rev int64) {
	p.log.Warn("node holds a revision the server never issued (datastore restored?); telling it to relist",
		"node", n.name, "rev", rev, "server", p.processed)
	p.relist(n)
}
