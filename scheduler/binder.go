package scheduler

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Binder writes the scheduler's decisions through the API server's admission path.
type Binder interface {
	// Bind assigns pod to node (the pods/binding subresource). A pod already
	// bound or deleted gives an error for which the caller drops the pod.
	Bind(ctx context.Context, pod *corev1.Pod, node string) error
	// Unschedulable sets the PodScheduled=False condition (reason Unschedulable, message) on the pod's status.
	Unschedulable(ctx context.Context, pod *corev1.Pod, message string) error
	// Event records an Event about pod (eventType Normal or Warning; reasons Scheduled, FailedScheduling).
	Event(ctx context.Context, pod *corev1.Pod, eventType, reason, message string) error
}

// Event reasons, as kube-scheduler records them.
const (
	reasonScheduled        = "Scheduled"
	reasonFailedScheduling = "FailedScheduling"
)

// worker runs binding and status jobs until ctx ends. Config.BindWorkers
// of them run at once; the loop blocks when all are busy and the job
// channel is full, which bounds the bindings in flight.
func (s *Scheduler) worker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-s.work:
			job(ctx)
		}
	}
}

// dispatch hands a job to the workers; false when ctx ended first.
func (s *Scheduler) dispatch(ctx context.Context, job func(context.Context)) bool {
	select {
	case s.work <- job:
		return true
	case <-ctx.Done():
		return false
	}
}

// bind writes one decision. On success the pod waits in the queue for the
// watch to show it bound. On failure the placement is undone in the cache
// and: a pod that is gone is dropped; a conflict (bound by someone else,
// being deleted, changed) is checked against the store; anything else is
// retried after a back-off.
func (s *Scheduler) bind(ctx context.Context, qp *queuedPod, p *podInfo, node string) {
	err := s.cfg.Binder.Bind(ctx, p.pod, node)
	if err == nil {
		s.queue.bound(qp)
		s.record(ctx, p.pod, corev1.EventTypeNormal, reasonScheduled, scheduledMessage(p.key, node))
		return
	}
	if ctx.Err() != nil {
		return
	}
	if s.cache.forget(p.key, p.uid) {
		s.queue.moveAll()
	}
	switch {
	case apierrors.IsNotFound(err):
		s.queue.drop(qp)
	case apierrors.IsConflict(err):
		s.refresh(ctx, qp, p)
	default:
		s.log.Warn("binding failed; retrying after back-off", "pod", p.key, "node", node, "err", err)
		s.queue.requeue(qp, stateBinding)
	}
}

// scheduledMessage is the Scheduled Event's message, kube-scheduler's
// words; joined, not formatted: one a pod bound.
func scheduledMessage(key, node string) string {
	return "Successfully assigned " + key + " to " + node
}

// refresh reads the pod after a conflicting bind: if it is still the same
// unbound pod it is tried again after a back-off; otherwise it is dropped
// and the watch brings its new state.
func (s *Scheduler) refresh(ctx context.Context, qp *queuedPod, p *podInfo) {
	kv, err := s.cfg.Store.Get(ctx, podsResource.Key(p.pod.Namespace, p.pod.Name))
	if errors.Is(err, datastore.ErrNotFound) {
		s.queue.drop(qp)
		return
	}
	if err != nil {
		s.queue.requeue(qp, stateBinding)
		return
	}
	obj, _, err := api.DecodeJSON(podsResource, kv.Value, false)
	cur, ok := obj.(*corev1.Pod)
	if err != nil || !ok || cur.UID != p.uid || cur.Spec.NodeName != "" || cur.DeletionTimestamp != nil {
		s.queue.drop(qp)
		return
	}
	s.queue.requeue(qp, stateBinding)
}

// reportUnschedulable writes a failure to the pod's status and then, by
// the event workers, as an event. A pod that is gone or changed needs
// nothing; other errors make the queue forget the message so the next
// failure writes it again.
func (s *Scheduler) reportUnschedulable(ctx context.Context, qp *queuedPod, pod *corev1.Pod, msg string) {
	err := s.cfg.Binder.Unschedulable(ctx, pod, msg)
	if err == nil {
		s.record(ctx, pod, corev1.EventTypeWarning, reasonFailedScheduling, msg)
		return
	}
	if ctx.Err() != nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return
	}
	s.log.Warn("cannot record scheduling failure", "pod", podKey(pod.Namespace, pod.Name), "err", err)
	s.queue.unrecord(qp, msg)
}
