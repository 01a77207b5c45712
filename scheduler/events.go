package scheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// eventJob is one Event to record about a pod.
type eventJob struct {
	pod                        *corev1.Pod
	eventType, reason, message string
}

// record hands an Event to the event workers, so a bind worker is free
// for the next binding as soon as its own write is done (each Event is a
// datastore write of its own). It waits while the event queue is full,
// which holds the bindings back rather than dropping Events; false when
// ctx ended first.
func (s *Scheduler) record(ctx context.Context, pod *corev1.Pod, eventType, reason, message string) bool {
	select {
	case s.events <- eventJob{pod: pod, eventType: eventType, reason: reason, message: message}:
		return true
	case <-ctx.Done():
		return false
	}
}

// eventWorker writes Events until ctx ends. Config.EventWorkers of them
// run at once.
func (s *Scheduler) eventWorker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-s.events:
			s.writeEvent(ctx, ev)
		}
	}
}

func (s *Scheduler) writeEvent(ctx context.Context, ev eventJob) {
	err := s.cfg.Binder.Event(ctx, ev.pod, ev.eventType, ev.reason, ev.message)
	if err != nil && ctx.Err() == nil {
		s.log.Debug("cannot record event", "pod", podKey(ev.pod.Namespace, ev.pod.Name), "reason", ev.reason, "err", err)
	}
}
