package client

import (
	"sync"

	"github.com/bramble-edge/bramble/mqtt"
)

// item is one thing for the stream goroutine: a desired Event, or the news
// that the client (re)connected.
type item struct {
	ev        *mqtt.Event
	connected bool
}

// queue is an unbounded FIFO between paho's delivery goroutine, which must
// never block, and the stream goroutine, which may (REST resync, a slow
// Applier). Memory is the bound: a node's desired stream is its own pods.
type queue struct {
	mu    sync.Mutex
	items []item
	ready chan struct{} // capacity 1: "items may be waiting"
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) push(it item) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// pop returns the oldest item, if any.
func (q *queue) pop() (item, bool) { return q.popIf(func(item) bool { return true }) }

// popIf returns the oldest item if there is one and ok(item) holds.
func (q *queue) popIf(ok func(item) bool) (item, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 || !ok(q.items[0]) {
		return item{}, false
	}
	it := q.items[0]
	q.items[0] = item{}
	q.items = q.items[1:]
	if len(q.items) == 0 {
		q.items = nil // let the backing array go
	}
	return it, true
}

// len is the number of queued items.
func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
