package scheduler

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Preemptor carries out preemption decisions; a scheduler without one
// never preempts.
type Preemptor interface {
	// Protected reports whether evicting pod now would break a
	// PodDisruptionBudget. It is called in the scheduling loop, so it must
	// read a cache, not the network.
	Protected(pod *corev1.Pod) bool
	// Nominate sets pod's status.nominatedNodeName.
	Nominate(ctx context.Context, pod *corev1.Pod, node string) error
	// Preempt deletes victim to make room on its node for preemptor.
	Preempt(ctx context.Context, victim, preemptor *corev1.Pod) error
}

// reasonPreempted is the event reason a victim gets, as kube-scheduler's.
const reasonPreempted = "Preempted"

// tryPreempt looks for room for a pod that fits nowhere by evicting pods
// of lower priority. It returns the message to report: the fit error,
// with what preemption found.
func (s *Scheduler) tryPreempt(ctx context.Context, p popped, fitErr error) string {
	msg := fitErr.Error()
	var fe *FitError
	pol := p.info.pod.Spec.PreemptionPolicy
	if s.cfg.Preemptor == nil || !errors.As(fitErr, &fe) || (pol != nil && *pol == corev1.PreemptNever) {
		return msg
	}
	best, ok, wait := s.algo.preempt(p.info, s.snap, s.cfg.Preemptor.Protected)
	switch {
	case wait:
		return msg + " preemption: waiting for lower-priority pods to terminate."
	case !ok:
		return msg + " preemption: no lower-priority pods to evict would make room."
	}
	pod := p.info.pod
	s.dispatch(ctx, func(ctx context.Context) { s.carryOut(ctx, pod, best, true) })
	return fmt.Sprintf("%s preemption: evicting %d lower-priority pod(s) on node %s.", msg, len(best.victims), best.node)
}

// carryOut nominates the node (for a pod not yet bound) and deletes the
// victims; the pod is tried again when their deletion frees the node.
func (s *Scheduler) carryOut(ctx context.Context, pod *corev1.Pod, pe preemption, nominate bool) {
	if nominate {
		if err := s.cfg.Preemptor.Nominate(ctx, pod, pe.node); err != nil && !apierrors.IsNotFound(err) {
			s.log.Warn("cannot nominate node", "pod", podKey(pod.Namespace, pod.Name), "node", pe.node, "err", err)
		}
	}
	for _, v := range pe.victims {
		err := s.cfg.Preemptor.Preempt(ctx, v.pod, pod)
		if err != nil && !apierrors.IsNotFound(err) {
			s.log.Warn("cannot preempt pod", "pod", v.key, "for", podKey(pod.Namespace, pod.Name), "err", err)
			continue
		}
		s.record(ctx, v.pod, corev1.EventTypeNormal, reasonPreempted,
			fmt.Sprintf("Preempted by pod %s on node %s", pod.UID, pe.node))
	}
}
