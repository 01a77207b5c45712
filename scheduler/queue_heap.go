package scheduler

import (
	"container/heap"
	"time"
)

// queueState says where a pod is in its scheduling life.
type queueState int

const (
	stateActive        queueState = iota // waiting its turn
	stateBackoff                         // waiting out its back-off
	stateUnschedulable                   // did not fit; waits for a cluster change
	stateInFlight                        // popped: a scheduling cycle is deciding
	stateBinding                         // assumed on a node; the binding is being written
	stateBound                           // bound; waiting for the watch to show it
)

// queuedPod is the queue's record of one unbound pod. All fields are
// guarded by the queue's mutex.
type queuedPod struct {
	info         *podInfo
	state        queueState
	attempts     int       // failed attempts so far
	seq          uint64    // order of arrival in the active heap (FIFO among equals)
	backoffUntil time.Time // no attempt before this
	since        time.Time // when it became unschedulable
	cycle        int64     // scheduling cycle of its last pop
	index        int       // position in the heap holding it
	lastMessage  string    // the failure last written to the pod's status
	moved        bool      // something changed while it was in flight
	waitingSince time.Time // first of the cycles in a row that waited for image platforms
}

// activeHeap orders pods by priority (higher first), then arrival.
type activeHeap []*queuedPod

func (h activeHeap) Len() int { return len(h) }
func (h activeHeap) Less(i, j int) bool {
	if h[i].info.priority != h[j].info.priority {
		return h[i].info.priority > h[j].info.priority
	}
	return h[i].seq < h[j].seq
}
func (h activeHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *activeHeap) Push(x any) {
	qp := x.(*queuedPod)
	qp.index = len(*h)
	*h = append(*h, qp)
}
func (h *activeHeap) Pop() any {
	old := *h
	qp := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	qp.index = -1
	return qp
}

// backoffHeap orders pods by the end of their back-off.
type backoffHeap struct{ activeHeap }

func (h backoffHeap) Less(i, j int) bool {
	a, b := h.activeHeap[i], h.activeHeap[j]
	if !a.backoffUntil.Equal(b.backoffUntil) {
		return a.backoffUntil.Before(b.backoffUntil)
	}
	return a.seq < b.seq
}

// peek returns the pod whose back-off ends first, or nil.
func (h *backoffHeap) peek() *queuedPod {
	if len(h.activeHeap) == 0 {
		return nil
	}
	return h.activeHeap[0]
}

// removeFrom takes qp out of whichever heap or set holds it.
func (q *queue) removeFrom(qp *queuedPod) {
	switch qp.state {
	case stateActive:
		heap.Remove(&q.active, qp.index)
	case stateBackoff:
		heap.Remove(&q.backoff, qp.index)
	case stateUnschedulable:
		delete(q.unsched, qp.info.key)
	}
}

// activate puts qp at the back of its priority in the active heap.
func (q *queue) activate(qp *queuedPod) {
	q.seq++
	qp.seq, qp.state = q.seq, stateActive
	heap.Push(&q.active, qp)
	q.signal()
}

// toBackoff parks qp until its back-off ends, or activates it when the
// back-off is over already.
func (q *queue) toBackoff(qp *queuedPod, now time.Time) {
	if !qp.backoffUntil.After(now) {
		q.activate(qp)
		return
	}
	q.seq++
	qp.seq, qp.state = q.seq, stateBackoff
	heap.Push(&q.backoff, qp)
	q.signal()
}

// signal wakes a waiting Pop; it never blocks.
func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// drainWake drops a pending signal; the caller holds the lock and is about
// to look at the state itself.
func (q *queue) drainWake() {
	select {
	case <-q.wake:
	default:
	}
}
