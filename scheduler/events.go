package scheduler

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// eventJob is one Event to record about a pod.
type eventJob struct {
	pod                        *corev1.Pod
	eventType, reason, message string
}

// maxPendingEvents bounds the Events waiting for the event workers. It is
// far above what a burst of bindings leaves behind (one Scheduled Event a
// pod); only beyond it does record wait, so an Event is never dropped.
const maxPendingEvents = 1 << 16

// eventQueue holds the Events waiting for the event workers, in order.
// Like upstream's recorder it is apart from the bindings: putting an Event
// in does not wait for an Event write (each one is a datastore write of
// its own), so a burst of bindings is not held back by its Events, which
// follow as the event workers write them.
type eventQueue struct {
	mu    sync.Mutex
	jobs  []eventJob
	limit int
	ready chan struct{} // a job is waiting
	room  chan struct{} // a job was taken out
}

func newEventQueue(limit int) *eventQueue {
	return &eventQueue{limit: limit, ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// push appends ev, waiting only while limit Events are pending; false
// when ctx ended first.
func (q *eventQueue) push(ctx context.Context, ev eventJob) bool {
	for {
		q.mu.Lock()
		if len(q.jobs) < q.limit {
			q.jobs = append(q.jobs, ev)
			q.mu.Unlock()
			signal(q.ready)
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-ctx.Done():
			return false
		}
	}
}

// pop takes the oldest Event, waiting for one; false when ctx ended first.
func (q *eventQueue) pop(ctx context.Context) (eventJob, bool) {
	for {
		q.mu.Lock()
		if len(q.jobs) > 0 {
			ev := q.jobs[0]
			q.jobs[0] = eventJob{}
			q.jobs = q.jobs[1:]
			if len(q.jobs) == 0 {
				q.jobs = nil // let the drained array go
			} else {
				signal(q.ready) // wake another worker
			}
			q.mu.Unlock()
			signal(q.room)
			return ev, true
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-ctx.Done():
			return eventJob{}, false
		}
	}
}

// signal wakes one waiter of ch, or leaves the wake-up for the next one.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// record hands an Event to the event workers, so a bind worker is free
// for the next binding as soon as its own write is done. It waits only
// while maxPendingEvents are pending; false when ctx ended first.
func (s *Scheduler) record(ctx context.Context, pod *corev1.Pod, eventType, reason, message string) bool {
	return s.events.push(ctx, eventJob{pod: pod, eventType: eventType, reason: reason, message: message})
}

// eventWorker writes Events until ctx ends. Config.EventWorkers of them
// run at once.
func (s *Scheduler) eventWorker(ctx context.Context) {
	for {
		ev, ok := s.events.pop(ctx)
		if !ok {
			return
		}
		s.writeEvent(ctx, ev)
	}
}

func (s *Scheduler) writeEvent(ctx context.Context, ev eventJob) {
	err := s.cfg.Binder.Event(ctx, ev.pod, ev.eventType, ev.reason, ev.message)
	if err != nil && ctx.Err() == nil {
		s.log.Debug("cannot record event", "pod", podKey(ev.pod.Namespace, ev.pod.Name), "reason", ev.reason, "err", err)
	}
}
