package pods

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
)

// Reasons a pod is failed by the agent itself, as the kubelet's.
const (
	ReasonDeadlineExceeded = "DeadlineExceeded"
	ReasonEvicted          = "Evicted"
)

// failure is why the agent ended a pod: its phase is Failed from then on.
type failure struct {
	reason, message string
}

// pastDeadline fails a pod that has been active longer than its
// activeDeadlineSeconds, counted from when the agent took it on (its
// startTime), as the kubelet's active deadline handler does.
func (w *worker) pastDeadline(ctx context.Context, pod *corev1.Pod) bool {
	if w.failed != nil {
		return true
	}
	d := pod.Spec.ActiveDeadlineSeconds
	if d == nil || w.m.cfg.Clock.Now().Sub(w.startTime) < time.Duration(*d)*time.Second {
		return false
	}
	w.fail(ctx, pod, ReasonDeadlineExceeded, "Pod was active on the node longer than the specified deadline")
	return true
}

// fail stops every container of the pod (preStop hooks and grace period
// as for a deletion), records the event and reports the pod Failed with
// reason; its containers are not restarted and its volumes stay until
// the pod is deleted.
func (w *worker) fail(ctx context.Context, pod *corev1.Pod, reason, message string) {
	w.log.Info("failing pod", "reason", reason, "message", message)
	w.event(pod, "", events.Warning, reason, "%s", message)
	w.failed = &failure{reason: reason, message: message}
	w.mu.Lock()
	w.ended = true
	w.mu.Unlock()
	w.stopInOrder(ctx, pod, grace(pod, w.m.cfg.DefaultGrace))
	for _, st := range w.ctrs {
		w.observe(ctx, st)
		st.waiting, st.message = "", ""
	}
}

// applyFailure overrides the computed status of a pod the agent failed.
func (w *worker) applyFailure(s *corev1.PodStatus) {
	if w.failed == nil {
		return
	}
	s.Phase, s.Reason, s.Message = corev1.PodFailed, w.failed.reason, w.failed.message
}

// resumeFailure takes over an end the agent reported before it
// restarted (the pod's status as the server holds it): such a pod's
// containers are not started again, and its status is left as it is.
func (w *worker) resumeFailure(pod *corev1.Pod) {
	s := pod.Status
	if s.Phase != corev1.PodFailed || (s.Reason != ReasonEvicted && s.Reason != ReasonDeadlineExceeded) {
		return
	}
	w.failed = &failure{reason: s.Reason, message: s.Message}
	w.ended, w.reclaimed, w.frozen = true, s.Reason == ReasonEvicted, true
	w.last = s.DeepCopy()
}

// disruption is the DisruptionTarget condition the kubelet adds to a pod
// it evicts (Kubernetes 1.26+), for Jobs' pod failure policies.
func (w *worker) disruption() []corev1.PodCondition {
	if w.failed == nil || w.failed.reason != ReasonEvicted {
		return nil
	}
	c := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: "TerminationByKubelet", Message: w.failed.message, LastTransitionTime: metaTime(w.m.cfg.Clock.Now())}
	if w.last != nil {
		for _, prev := range w.last.Conditions {
			if prev.Type == c.Type {
				c.LastTransitionTime = prev.LastTransitionTime
			}
		}
	}
	return []corev1.PodCondition{c}
}
