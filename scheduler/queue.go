package scheduler

import (
	"container/heap"
	"context"
	"maps"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/bramble-edge/bramble/clock"
)

// queue holds the unbound pods the scheduler is responsible for, from the
// moment the watch shows them until the watch shows them bound (or
// deleted). Pods wait in one of three places:
//
//   - the active heap: ready to try, highest spec.priority first, then in
//     order of arrival;
//   - the back-off heap: they failed recently and may not be tried before
//     their back-off ends (1 s after the first failure, doubling to 60 s);
//   - the unschedulable set: they did not fit and are tried again only when
//     the cluster changes in a way that could make them fit (moveAll), or
//     after flushAfter as a safety net.
//
// Pop blocks until a pod is ready; it sleeps on a channel and on the clock
// for the next back-off to end, never polling.
type queue struct {
	mu         sync.Mutex
	clock      clock.Clock
	initial    time.Duration // first back-off
	maximum    time.Duration // longest back-off
	flushAfter time.Duration // longest stay in the unschedulable set

	items     map[string]*queuedPod
	active    activeHeap
	backoff   backoffHeap
	unsched   map[string]*queuedPod
	flushAt   time.Time // no unschedulable pod is due for a flush before this
	seq       uint64
	cycle     int64 // scheduling cycles started (pops)
	moveCycle int64 // the cycle current when moveAll last ran
	wake      chan struct{}
	wakeups   int64 // times Pop woke up without a pod (tests check it is not spinning)
}

func newQueue(clk clock.Clock, initial, maximum, flushAfter time.Duration) *queue {
	return &queue{clock: clk, initial: initial, maximum: maximum, flushAfter: flushAfter,
		items: map[string]*queuedPod{}, unsched: map[string]*queuedPod{}, wake: make(chan struct{}, 1)}
}

// add records a new unbound pod or a new version of one.
func (q *queue) add(p *podInfo) {
	q.mu.Lock()
	defer q.mu.Unlock()
	qp, ok := q.items[p.key]
	if ok && qp.info.uid != p.uid {
		q.removeFrom(qp) // a new pod under an old name
		ok = false
	}
	if !ok {
		qp = &queuedPod{info: p}
		q.items[p.key] = qp
		q.activate(qp)
		return
	}
	changed := schedulingChanged(qp.info, p)
	qp.info = p
	switch {
	case !changed:
	case qp.state == stateUnschedulable:
		delete(q.unsched, p.key)
		q.toBackoff(qp, q.clock.Now())
	case qp.state == stateInFlight:
		qp.moved = true
	}
}

// schedulingChanged reports whether a new version of a pod could be
// scheduled differently: its spec or its labels changed (not its status).
func schedulingChanged(old, cur *podInfo) bool {
	if old.pod == cur.pod {
		return false
	}
	// Pointers to the specs: passed as values, both would be copied to the heap.
	return !maps.Equal(old.pod.Labels, cur.pod.Labels) || !equality.Semantic.DeepEqual(&old.pod.Spec, &cur.pod.Spec)
}

// infoOf is the latest podInfo of the queued pod under key
// (namespace/name), or nil.
func (q *queue) infoOf(key []byte) *podInfo {
	q.mu.Lock()
	defer q.mu.Unlock()
	if qp, ok := q.items[string(key)]; ok {
		return qp.info
	}
	return nil
}

// delete forgets a pod: deleted, bound, or no longer ours.
func (q *queue) delete(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if qp, ok := q.items[key]; ok {
		q.removeFrom(qp)
		delete(q.items, key)
	}
}

// popped is a pod handed to a scheduling cycle: the version to schedule,
// and the record to report the outcome on.
type popped struct {
	qp    *queuedPod
	info  *podInfo
	cycle int64
}

// Pop waits for the next pod to schedule, until ctx ends.
func (q *queue) Pop(ctx context.Context) (popped, error) {
	for {
		q.mu.Lock()
		q.drainWake() // the state is read below, under the lock: older signals are moot
		now := q.clock.Now()
		q.flush(now)
		if q.active.Len() > 0 {
			qp := heap.Pop(&q.active).(*queuedPod)
			q.cycle++
			qp.state, qp.cycle, qp.moved = stateInFlight, q.cycle, false
			q.mu.Unlock()
			return popped{qp: qp, info: qp.info, cycle: qp.cycle}, nil
		}
		wait, timed := q.nextDeadline(now)
		q.mu.Unlock()
		var timer <-chan time.Time
		if timed {
			timer = q.clock.After(wait)
		}
		select {
		case <-ctx.Done():
			return popped{}, ctx.Err()
		case <-q.wake:
		case <-timer:
		}
		q.mu.Lock()
		q.wakeups++
		q.mu.Unlock()
	}
}

// flush activates the pods whose back-off is over and the ones that waited
// too long in the unschedulable set.
func (q *queue) flush(now time.Time) {
	for qp := q.backoff.peek(); qp != nil && !qp.backoffUntil.After(now); qp = q.backoff.peek() {
		heap.Pop(&q.backoff)
		q.activate(qp)
	}
	if len(q.unsched) == 0 || now.Before(q.flushAt) {
		return
	}
	var next time.Time
	for key, qp := range q.unsched {
		due := qp.since.Add(q.flushAfter)
		if !now.Before(due) {
			delete(q.unsched, key)
			q.toBackoff(qp, now)
		} else if next.IsZero() || due.Before(next) {
			next = due
		}
	}
	q.flushAt = next
}

// nextDeadline is how long until flush has something to do; false when
// nothing is waiting on time.
func (q *queue) nextDeadline(now time.Time) (time.Duration, bool) {
	var next time.Time
	if qp := q.backoff.peek(); qp != nil {
		next = qp.backoffUntil
	}
	if len(q.unsched) > 0 && (next.IsZero() || q.flushAt.Before(next)) {
		next = q.flushAt
	}
	if next.IsZero() {
		return 0, false
	}
	return max(next.Sub(now), 0), true
}

// backoff is the wait after a pod's attempts-th failed attempt: initial,
// doubling per attempt, at most maximum.
func backoff(attempts int, initial, maximum time.Duration) time.Duration {
	d := initial
	for i := 1; i < attempts && d < maximum; i++ {
		d *= 2
	}
	return min(d, maximum)
}
