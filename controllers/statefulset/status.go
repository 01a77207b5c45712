package statefulset

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// computeStatus counts the set's pods as upstream does: every pod it
// owns, those Running and Ready, those available for minReadySeconds,
// and those (not terminating) at the current and update revisions. Once
// every pod is at the update revision and Ready, that revision becomes
// the current one.
func (c *Controller) computeStatus(key string, set *appsv1.StatefulSet, st *state, now time.Time) appsv1.StatefulSetStatus {
	s := appsv1.StatefulSetStatus{
		ObservedGeneration: set.Generation, CollisionCount: st.revs.collisionCount,
		CurrentRevision: st.revs.current.Name, UpdateRevision: st.revs.update.Name,
		Conditions: set.Status.Conditions,
	}
	for _, pod := range st.all {
		s.Replicas++
		if runningAndReady(pod) {
			s.ReadyReplicas++
			if c.available(key, set, pod, now) {
				s.AvailableReplicas++
			}
		}
		if pod.DeletionTimestamp != nil {
			continue
		}
		switch pod.Labels[LabelRevision] {
		case s.CurrentRevision:
			s.CurrentReplicas++
			if s.CurrentRevision == s.UpdateRevision {
				s.UpdatedReplicas++
			}
		case s.UpdateRevision:
			s.UpdatedReplicas++
		}
	}
	want := int32(replicaCount(set))
	if s.UpdatedReplicas == want && s.ReadyReplicas == want && s.Replicas == want {
		s.CurrentRevision, s.CurrentReplicas = s.UpdateRevision, s.UpdatedReplicas
	}
	return s
}

// updateStatus writes the status when it changed.
func (c *Controller) updateStatus(ctx context.Context, key string, set *appsv1.StatefulSet, st *state) error {
	s := c.computeStatus(key, set, st, c.now())
	if equality.Semantic.DeepEqual(set.Status, s) {
		return nil
	}
	cp := set.DeepCopy()
	cp.Status = s
	if _, err := c.client.UpdateStatus(ctx, cp); err != nil {
		return fmt.Errorf("update status of statefulset %s: %w", key, err)
	}
	return nil
}
