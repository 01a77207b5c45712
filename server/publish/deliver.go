package publish

import (
	"errors"
	"fmt"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// nodeState is the dispatcher's record of one node's desired stream.
type nodeState struct {
	name    string
	head    int64 // Rev of the last Event queued: the Prev of the next
	out     *outbox
	catchup *catchup   // non-nil while a catch-up is being built
	views   []*catchup // relists reading the history (view.go)
	stall   stallWatch
}

// node returns the state of name, creating it: a new chain starts at the
// revision the index was loaded at (nothing for the node has been sent by
// this publisher since).
func (p *Publisher) node(name string) *nodeState {
	n := p.nodes[name]
	if n == nil {
		n = &nodeState{name: name, head: p.start}
		n.out = &outbox{p: p, node: name, topic: mqtt.DesiredTopic(name), limit: p.cfg.NodeQueue, taken: p.start}
		p.nodes[name] = n
	}
	return n
}

// dispatch moves the index past one committed event and queues what it
// means for watchers and nodes.
func (p *Publisher) dispatch(ev *datastore.Event) {
	p.processed = ev.Revision
	ref, ok := parseKey(ev.KV.Key)
	if !ok {
		return
	}
	enc := encoder{}
	if ref.Resource != mqtt.ResourceSecrets {
		p.watch.send(ref, ev, &enc)
	}
	out, err := p.idx.apply(ref, ev)
	if err != nil {
		p.log.Error("cannot index event; nodes may miss it until they relist", "rev", ev.Revision, "key", ev.KV.Key, "err", err)
		return
	}
	for i, name := range out.order {
		p.deliver(p.node(name), ev.Revision, out.lists[i], &enc)
	}
	for name, refs := range out.released {
		if n := p.nodes[name]; n != nil {
			n.released(refs)
		}
	}
}

// released tells the relists and the catch-up being built for n that
// its pods no longer name refs (objects that do not exist now).
func (n *nodeState) released(refs []mqtt.ObjectRef) {
	for _, v := range n.views {
		v.release(refs)
	}
	if n.catchup != nil {
		n.catchup.release(refs)
	}
}

// deliver queues one revision's changes for node n, or records them into
// the catch-up being built.
func (p *Publisher) deliver(n *nodeState, rev int64, changes []change, enc *encoder) {
	for _, v := range n.views {
		v.record(changes)
	}
	if n.catchup != nil {
		n.catchup.record(changes)
		return
	}
	encoded := make([][][]byte, 0, len(changes))
	for _, c := range changes {
		b, err := enc.changeJSON(c)
		if err != nil {
			p.log.Error("cannot encode change; the node will relist", "node", n.name, "rev", rev, "err", err)
			p.relist(n)
			return
		}
		encoded = append(encoded, b)
	}
	payload, err := mqtt.EncodeStoredEventParts(rev, n.head, encoded)
	p.push(n, rev, n.head, payload, err, 0)
}

// queue encodes ev and puts it in n's outbox; a full outbox turns into a
// catch-up from the first Event that did not reach the broker. An Event
// larger than limit (when > 0) becomes a RELIST.
func (p *Publisher) queue(n *nodeState, ev *mqtt.Event, limit int) {
	payload, err := ev.Encode()
	p.push(n, ev.Rev, ev.Prev, payload, err, limit)
}

// push puts an encoded Event (rev, prev) in n's outbox; see queue.
func (p *Publisher) push(n *nodeState, rev, prev int64, payload []byte, err error, limit int) {
	if err == nil && limit > 0 && len(payload) > limit {
		err = fmt.Errorf("event is %d bytes, limit %d", len(payload), limit)
	}
	if err != nil {
		p.log.Error("cannot send event; the node will relist", "node", n.name, "rev", rev, "err", err)
		p.relist(n)
		return
	}
	if !n.out.push(outMsg{rev: rev, prev: prev, payload: payload}) {
		from, ok := n.out.drop()
		if !ok {
			from = prev
		}
		p.log.Warn("node queue full; switching it to a catch-up", "node", n.name, "rev", rev, "from", from)
		p.startCatchup(n, from)
		return
	}
	n.head = rev
}

// relist tells n to fetch its view by REST: whatever was queued is dropped
// and the chain continues from the current revision.
func (p *Publisher) relist(n *nodeState) {
	if n.catchup != nil {
		n.catchup.cancel()
		n.catchup = nil
	}
	n.out.drop()
	ev := mqtt.Event{Type: mqtt.EventRelist, Rev: max(p.processed, n.head), Prev: n.head}
	if ev.Rev == ev.Prev {
		ev.Prev = 0
	}
	payload, err := ev.Encode()
	if err == nil && !n.out.push(outMsg{rev: ev.Rev, prev: ev.Prev, payload: payload}) {
		err = errors.New("queue full after drop")
	}
	if err != nil {
		p.log.Error("cannot queue RELIST", "node", n.name, "err", err)
		return
	}
	p.log.Info("told node to relist", "node", n.name, "rev", ev.Rev)
	n.head = ev.Rev
}

// reload rebuilds the index after the watch fell behind compaction:
// changes were lost, so every node relists and the watch resumes from the
// new index's revision.
func (p *Publisher) reload() error {
	idx := newIndex()
	rev, err := idx.load(p.ctx, p.cfg.Store)
	if err != nil {
		p.log.Warn("reload index failed", "err", err)
		return err
	}
	p.back.Reset()
	p.idx, p.processed, p.start = idx, rev, rev // new chains cannot vouch for what was missed
	p.events.Reset(rev)
	p.log.Warn("publisher fell behind compaction; every node relists", "rev", rev)
	for _, n := range p.nodes {
		p.dropViews(n)
		p.relist(n)
	}
	return nil
}
