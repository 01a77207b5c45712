package publish

import (
	"sync"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// inbox is where the Bus handler leaves what nodes say, without ever
// blocking: the latest hello per node waits for the dispatcher, acked
// revisions are kept for everyone to read.
type inbox struct {
	wake chan struct{} // capacity 1: "there are hellos"

	mu     sync.Mutex
	hellos map[string]int64
	acks   map[string]int64
}

func newInbox() inbox {
	return inbox{wake: make(chan struct{}, 1), hellos: map[string]int64{}, acks: map[string]int64{}}
}

func (in *inbox) acked(node string) (int64, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	rev, ok := in.acks[node]
	return rev, ok
}

// onAck is the Bus handler for bramble/v1/nodes/+/ack. The broker's ACL
// lets only the node itself publish there.
func (p *Publisher) onAck(topic string, payload []byte) {
	node, ok := mqtt.NodeOfTopic(topic)
	if !ok || !mqtt.IsNodeTopic(topic, node, "ack") {
		return
	}
	ack, err := mqtt.DecodeAck(payload)
	if err != nil {
		p.log.Warn("bad ack from node", "node", node, "err", err)
		return
	}
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	if ack.Type == mqtt.AckHello {
		p.in.acks[node] = ack.Rev // what the node holds, even if it went back
		p.in.hellos[node] = ack.Rev
		select {
		case p.in.wake <- struct{}{}:
		default:
		}
		return
	}
	p.in.acks[node] = max(p.in.acks[node], ack.Rev)
}

// takeHellos answers every hello waiting in the inbox.
func (p *Publisher) takeHellos() {
	p.in.mu.Lock()
	hellos := p.in.hellos
	p.in.hellos = map[string]int64{}
	p.in.mu.Unlock()
	for node, rev := range hellos {
		p.hello(p.node(node), rev)
	}
}

// hello handles a node announcing that it holds revision rev: if anything
// it may not have was already handed to the broker, it gets a catch-up.
func (p *Publisher) hello(n *nodeState, rev int64) {
	n.stall = stallWatch{}
	if rev > p.processed {
		p.aheadRelist(n, rev)
		return
	}
	if n.catchup != nil && rev >= n.catchup.from {
		return // the catch-up being built covers it
	}
	if n.catchup == nil && n.out.covers(rev) {
		return // what is queued brings it up to date
	}
	p.log.Debug("node says hello behind what was published", "node", n.name, "rev", rev, "taken", n.out.takenUpTo())
	p.startCatchup(n, rev)
}

// stallWatch notices a node whose acknowledged revision stays behind what
// was published to it: acks and hellos can be lost (the server's own
// broker connection may have been down when they were sent).
type stallWatch struct {
	rev   int64
	since time.Time
	wait  time.Duration
}

// checkStalls gives a catch-up to every node heard from whose
// acknowledged revision has not moved for its wait while published Events
// remain unacknowledged.
func (p *Publisher) checkStalls(now time.Time) {
	for _, n := range p.nodes {
		acked, heard := p.in.acked(n.name)
		taken := n.out.takenUpTo()
		if !heard || acked >= taken {
			n.stall = stallWatch{}
			continue
		}
		if n.catchup != nil {
			continue
		}
		if n.stall.since.IsZero() || n.stall.rev != acked {
			n.stall = stallWatch{rev: acked, since: now, wait: p.cfg.StallTimeout}
			continue
		}
		if now.Sub(n.stall.since) < n.stall.wait {
			continue
		}
		p.log.Info("node stopped acknowledging; sending a catch-up", "node", n.name, "rev", acked, "taken", taken)
		wait := min(2*n.stall.wait, 5*time.Minute)
		p.startCatchup(n, acked)
		n.stall = stallWatch{rev: acked, since: now, wait: wait}
	}
}
