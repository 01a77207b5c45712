package client

import (
	"math/rand/v2"
	"sync"
	"time"
)

// acker gathers a node's ACKs: the newest applied revision goes out once,
// a jittered delay after the first one not yet sent, however many Events
// were applied meanwhile. The server reads acks only to notice a node that
// stopped following (its stall watch waits 10 s by default), so a second's
// delay costs nothing, and 1,000 nodes that received one update at once do
// not answer the broker at once, nor once per Event in a burst.
type acker struct {
	delay time.Duration // at most; each wait is drawn between delay/2 and delay
	send  func(rev int64)

	mu      sync.Mutex
	pending int64 // 0: nothing waiting
	timer   *time.Timer
	closed  bool
}

// add records that rev was applied; the ack leaves later.
func (a *acker) add(rev int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	a.pending = max(a.pending, rev)
	if a.timer == nil {
		wait := a.delay/2 + rand.N(a.delay/2+1)
		a.timer = time.AfterFunc(wait, a.flush)
	}
}

func (a *acker) flush() {
	a.mu.Lock()
	rev := a.pending
	a.pending, a.timer = 0, nil
	closed := a.closed
	a.mu.Unlock()
	if rev > 0 && !closed {
		a.send(rev)
	}
}

// drop forgets what waits: a HELLO about to go says where the node stands,
// and an older ack arriving after it (a revision from before a relist
// went back) must not contradict it.
func (a *acker) drop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopLocked()
}

// close drops what waits and sends nothing more: the next connection's
// hello tells the server where the node stands.
func (a *acker) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	a.stopLocked()
}

func (a *acker) stopLocked() {
	a.pending = 0
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
}
