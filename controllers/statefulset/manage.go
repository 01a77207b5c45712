package statefulset

import (
	"context"
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// reconcile takes one step towards the set's spec, as upstream orders it:
// the pods in range lowest ordinal first (create the missing, replace the
// finished), then the pods beyond the range highest ordinal first, then
// one step of the rolling update. Under OrderedReady (monotonic) each
// step waits until every pod before it is Running and available.
func (c *Controller) reconcile(ctx context.Context, key string, set *appsv1.StatefulSet, st *state) error {
	monotonic := set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	now := c.now()
	waiting, err := c.manageReplicas(ctx, key, set, st, monotonic, now)
	if waiting || err != nil {
		return err
	}
	if err := c.scaleDown(ctx, key, set, st, monotonic); err != nil || !settled(st, monotonic) {
		return err
	}
	if set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType {
		return c.rollingUpdate(ctx, key, set, st, now)
	}
	return nil
}

// manageReplicas creates the missing pods in range and replaces the
// finished ones, lowest ordinal first; waiting reports that OrderedReady
// must stop here until a pod is created, gone or available.
func (c *Controller) manageReplicas(ctx context.Context, key string, set *appsv1.StatefulSet, st *state, monotonic bool, now time.Time) (waiting bool, err error) {
	var errs []error
	for i, pod := range st.replicas {
		switch {
		case pod == nil:
			errs = append(errs, c.createPod(ctx, key, set, st, st.start+i))
		case finished(pod) && pod.DeletionTimestamp == nil:
			errs = append(errs, c.deletePod(ctx, key, set, pod))
		case pod.DeletionTimestamp == nil:
			errs = append(errs, c.ensureClaims(ctx, set, pod, false))
		}
		if monotonic && !c.available(key, set, pod, now) {
			return true, errors.Join(errs...)
		}
	}
	return false, errors.Join(errs...)
}

// scaleDown deletes the pods beyond the range, highest ordinal first;
// under OrderedReady one at a time, each once the one above it is gone.
// Their claims first get the owners whenScaled asks for.
func (c *Controller) scaleDown(ctx context.Context, key string, set *appsv1.StatefulSet, st *state, monotonic bool) error {
	var errs []error
	for _, pod := range st.condemned {
		if pod.DeletionTimestamp != nil {
			if monotonic {
				break
			}
			continue
		}
		errs = append(errs, c.ensureClaims(ctx, set, pod, true), c.deletePod(ctx, key, set, pod))
		if monotonic {
			break
		}
	}
	return errors.Join(errs...)
}

// settled reports whether scaling is done enough for the rolling update:
// under OrderedReady, no pod beyond the range is left.
func settled(st *state, monotonic bool) bool {
	return !monotonic || len(st.condemned) == 0
}

func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

// available reports whether pod is Running, not terminating and has been
// Ready for minReadySeconds; a pod Ready but not yet long enough requeues
// the set for when it will be.
func (c *Controller) available(key string, set *appsv1.StatefulSet, pod *corev1.Pod, now time.Time) bool {
	if !runningAndReady(pod) {
		return false
	}
	if set.Spec.MinReadySeconds <= 0 {
		return true
	}
	at := api.PodCondition(pod, corev1.PodReady).LastTransitionTime.Add(time.Duration(set.Spec.MinReadySeconds) * time.Second)
	if now.Before(at) {
		c.queue.AddAfter(key, at.Sub(now))
		return false
	}
	return true
}

func runningAndReady(pod *corev1.Pod) bool {
	if pod == nil || pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning {
		return false
	}
	cond := api.PodCondition(pod, corev1.PodReady)
	return cond != nil && cond.Status == corev1.ConditionTrue
}
