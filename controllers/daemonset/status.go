package daemonset

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/bramble-edge/bramble/api"
)

// computeStatus counts, over the nodes, what `kubectl get ds` and
// `kubectl rollout status ds` read. A node's pod is its oldest live one.
func (c *Controller) computeStatus(key string, ds *appsv1.DaemonSet, st *state, now time.Time) appsv1.DaemonSetStatus {
	s := appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation,
		CollisionCount: ds.Status.CollisionCount, Conditions: ds.Status.Conditions}
	seen := make(map[string]bool, len(st.nodes))
	for _, node := range st.nodes {
		seen[node.Name] = true
		pods := st.byNode[node.Name]
		if !nodePlacement(node, &ds.Spec.Template.Spec).shouldRun {
			if len(pods) > 0 {
				s.NumberMisscheduled++
			}
			continue
		}
		s.DesiredNumberScheduled++
		if len(pods) == 0 {
			continue
		}
		s.CurrentNumberScheduled++
		pod := pods[0]
		if cond := api.PodCondition(pod, corev1.PodReady); cond != nil && cond.Status == corev1.ConditionTrue {
			s.NumberReady++
			if c.available(key, ds, pod, now) {
				s.NumberAvailable++
			}
		}
		if podHash(pod) == st.hash {
			s.UpdatedNumberScheduled++
		}
	}
	for node, pods := range st.byNode {
		if !seen[node] && len(pods) > 0 {
			s.NumberMisscheduled++
		}
	}
	s.NumberUnavailable = max(s.DesiredNumberScheduled-s.NumberAvailable, 0)
	return s
}

// updateStatus writes the status when it changed.
func (c *Controller) updateStatus(ctx context.Context, key string, ds *appsv1.DaemonSet, st *state) error {
	s := c.computeStatus(key, ds, st, c.now())
	if equality.Semantic.DeepEqual(ds.Status, s) {
		return nil
	}
	cp := ds.DeepCopy()
	cp.Status = s
	if _, err := c.client.UpdateStatus(ctx, cp); err != nil {
		return fmt.Errorf("update status of daemonset %s: %w", key, err)
	}
	return nil
}
