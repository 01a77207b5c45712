package publish

import (
	"context"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// outMsg is one encoded Event waiting for the broker.
type outMsg struct {
	rev, prev int64
	payload   []byte
}

// outbox is one node's bounded queue of Events. The dispatcher pushes; a
// goroutine started on demand publishes them in order, retrying a publish
// that fails, and exits when the queue is empty. A stuck node (or a stuck
// topic) therefore holds only its own goroutine and at most limit
// messages.
type outbox struct {
	p     *Publisher
	node  string
	topic string
	limit int

	mu      sync.Mutex
	pending []outMsg
	spare   []outMsg // keepQueue slots pending restarts from once empty
	running bool
	taken   int64 // Rev of the last Event taken for publishing (or the chain start)
}

// push queues m; false when the queue is full (m is not queued).
func (o *outbox) push(m outMsg) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.pending) >= o.limit {
		return false
	}
	o.pending = append(o.pending, m)
	if !o.running {
		o.running = true
		o.p.wg.Add(1)
		go o.run()
	}
	return true
}

// drop discards what is queued and returns the Prev of the first dropped
// Event: the node may hold at most that revision of this chain.
func (o *outbox) drop() (int64, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.pending) == 0 {
		return 0, false
	}
	first := o.pending[0].prev
	o.pending = nil
	return first, true
}

// takenUpTo is the Rev of the last Event handed to the broker (or being
// handed).
func (o *outbox) takenUpTo() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.taken
}

// covers reports whether a node holding revision rev will get everything
// it lacks from what is still queued: it holds all that was handed to the
// broker, or the queued chain continues from at most rev.
func (o *outbox) covers(rev int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return rev >= o.taken || len(o.pending) > 0 && o.pending[0].prev <= rev
}

func (o *outbox) next() (outMsg, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.pending) == 0 {
		o.running = false
		return outMsg{}, false
	}
	m := o.pending[0]
	o.pending[0] = outMsg{}
	o.pending = o.keep(o.pending[1:])
	o.taken = m.rev
	return m, true
}

// keepQueue is the most queue slots an idle outbox keeps: one Event at a
// time, the usual case, then queues without an allocation.
const keepQueue = 2

// keep returns rest, or when it is empty, the start of a small array to
// queue into next (rest's own start moved past the Events taken).
func (o *outbox) keep(rest []outMsg) []outMsg {
	if len(rest) > 0 {
		return rest
	}
	if cap(o.spare) == 0 {
		o.spare = make([]outMsg, 0, keepQueue)
	}
	return o.spare[:0]
}

func (o *outbox) run() {
	defer o.p.wg.Done()
	for {
		m, ok := o.next()
		if !ok {
			return
		}
		if !o.publish(m) {
			return
		}
	}
}

// publish hands m to the broker, retrying with back-off until it is taken
// or the publisher stops (false).
func (o *outbox) publish(m outMsg) bool {
	ctx := o.p.ctx
	wait := 50 * time.Millisecond
	for {
		err := o.p.publishOnce(o.topic, m.payload)
		if err == nil {
			return true
		}
		o.p.log.Debug("publish desired event failed; retrying", "node", o.node, "rev", m.rev, "err", err)
		select {
		case <-ctx.Done():
			o.stopped()
			return false
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// publishOnce makes one Bus.Publish attempt at QoS 1, bounded by
// PublishTimeout unless the Bus only queues (mqtt.QueuingBus): the
// embedded broker's Publish returns at once, and there a context with a
// timer per delivery was a child of the publisher's context, so every
// node's outbox goroutine took that context's lock twice per delivery.
func (p *Publisher) publishOnce(topic string, payload []byte) error {
	if _, queues := p.cfg.Bus.(mqtt.QueuingBus); queues {
		return p.cfg.Bus.Publish(p.ctx, topic, 1, false, payload)
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.PublishTimeout)
	defer cancel()
	return p.cfg.Bus.Publish(ctx, topic, 1, false, payload)
}

// stopped marks the outbox idle after the publisher stopped mid-publish.
func (o *outbox) stopped() {
	o.mu.Lock()
	o.running = false
	o.mu.Unlock()
}
