package daemonset

import (
	"context"
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/api"
)

// rollingUpdate takes one step of a RollingUpdate: it deletes old-template
// pods (manage then re-creates them from the new template) on as many
// nodes as maxUnavailable allows, counting the nodes already without an
// available pod. Old pods that are not available anyway go at once.
func (c *Controller) rollingUpdate(ctx context.Context, key string, ds *appsv1.DaemonSet, st *state) error {
	now := c.now()
	unavailable := 0
	var replace, candidates []*corev1.Pod
	for _, node := range st.nodes {
		pl := nodePlacement(node, &ds.Spec.Template.Spec)
		pods := st.byNode[node.Name]
		switch {
		case !pl.shouldContinue:
		case len(pods) == 0:
			if pl.shouldRun {
				unavailable++
			}
		case len(pods) > 1 || finished(pods[0]):
			unavailable++ // manage sorts these out first
		case podHash(pods[0]) == st.hash:
			if !c.available(key, ds, pods[0], now) {
				unavailable++
			}
		case !c.available(key, ds, pods[0], now):
			replace = append(replace, pods[0])
		default:
			candidates = append(candidates, pods[0])
		}
	}
	n := min(max(maxUnavailable(ds, desiredCount(ds, st))-unavailable, 0), len(candidates))
	var errs []error
	for _, pod := range append(replace, candidates[:n]...) {
		errs = append(errs, c.deletePod(ctx, key, ds, pod))
	}
	return errors.Join(errs...)
}

func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

// desiredCount is the number of nodes that should run a pod.
func desiredCount(ds *appsv1.DaemonSet, st *state) int {
	n := 0
	for _, node := range st.nodes {
		if nodePlacement(node, &ds.Spec.Template.Spec).shouldRun {
			n++
		}
	}
	return n
}

// maxUnavailable resolves the strategy's maxUnavailable against desired
// (a percentage rounds up); at least 1, so a rollout always progresses.
func maxUnavailable(ds *appsv1.DaemonSet, desired int) int {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return 1
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, desired, true)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// available reports whether pod has been ready for minReadySeconds; a pod
// ready but not yet long enough requeues the DaemonSet for when it will be.
func (c *Controller) available(key string, ds *appsv1.DaemonSet, pod *corev1.Pod, now time.Time) bool {
	cond := api.PodCondition(pod, corev1.PodReady)
	if cond == nil || cond.Status != corev1.ConditionTrue {
		return false
	}
	if ds.Spec.MinReadySeconds <= 0 {
		return true
	}
	at := cond.LastTransitionTime.Add(time.Duration(ds.Spec.MinReadySeconds) * time.Second)
	if now.Before(at) {
		c.queue.AddAfter(key, at.Sub(now))
		return false
	}
	return true
}
