package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// rolling takes one RollingUpdate step (see PlanRolling): scale the new
// ReplicaSet up within the surge, or else scale old ones down as far as
// availability allows; once complete, trim old revisions.
func (p *pass) rolling(ctx context.Context, rss []*appsv1.ReplicaSet) error {
	newRS, old, err := p.newAndOld(ctx, rss, true)
	if err != nil {
		return err
	}
	surge, unavailable := fenceposts(p.d)
	activeOld := active(old)
	olderFirst(activeOld)
	counts := make([]Counts, len(activeOld))
	for i, rs := range activeOld {
		counts[i] = Counts{Replicas: specReplicas(rs), Available: rs.Status.AvailableReplicas}
	}
	newCounts := Counts{Replicas: specReplicas(newRS), Available: newRS.Status.AvailableReplicas}
	newTarget, oldTargets := PlanRolling(desired(p.d), surge, unavailable, newCounts, counts)
	if _, err := p.scaleTo(ctx, newRS, newTarget); err != nil {
		return err
	}
	if newTarget == newCounts.Replicas {
		for i, rs := range activeOld {
			if _, err := p.scaleTo(ctx, rs, oldTargets[i]); err != nil {
				return err
			}
		}
	}
	if deploymentComplete(p.d, &p.d.Status) {
		if err := p.cleanup(ctx, p.fresh(old)); err != nil {
			return err
		}
	}
	return p.syncRolloutStatus(ctx, p.fresh(withNew(old, newRS)), p.one(newRS))
}

// recreate takes one Recreate step: scale every old ReplicaSet to zero,
// wait until none of their pods runs, then create or scale up the new one.
func (p *pass) recreate(ctx context.Context, rss []*appsv1.ReplicaSet) error {
	newRS, old, err := p.newAndOld(ctx, rss, false)
	if err != nil {
		return err
	}
	scaledDown := false
	for _, rs := range active(old) {
		if _, err := p.scaleTo(ctx, rs, 0); err != nil {
			return err
		}
		scaledDown = true
	}
	if scaledDown || p.oldPodsRunning(newRS, p.fresh(old)) {
		return p.syncRolloutStatus(ctx, p.fresh(withNew(old, newRS)), p.one(newRS))
	}
	if newRS == nil {
		if newRS, old, err = p.newAndOld(ctx, rss, true); err != nil {
			return err
		}
	}
	if _, err := p.scaleTo(ctx, newRS, desired(p.d)); err != nil {
		return err
	}
	if deploymentComplete(p.d, &p.d.Status) {
		if err := p.cleanup(ctx, p.fresh(old)); err != nil {
			return err
		}
	}
	return p.syncRolloutStatus(ctx, p.fresh(withNew(old, newRS)), p.one(newRS))
}

// oldPodsRunning reports whether an old ReplicaSet still has pods that
// have not stopped for good (by its status, or by the pods themselves).
func (p *pass) oldPodsRunning(newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) bool {
	if sumStatus(statusReplicas, old...) > 0 {
		return true
	}
	for _, rs := range old {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		for _, obj := range p.c.pods.ByIndex(controllers.IndexOwner, string(rs.UID)) {
			pod := obj.(*corev1.Pod)
			ref := metav1.GetControllerOfNoCopy(pod)
			if ref != nil && ref.UID == rs.UID && !podTerminal(pod) {
				return true
			}
		}
	}
	return false
}

// cleanup deletes the oldest old ReplicaSets beyond revisionHistoryLimit,
// only those fully scaled down and observed so by their controller.
func (p *pass) cleanup(ctx context.Context, old []*appsv1.ReplicaSet) error {
	if p.d.Spec.RevisionHistoryLimit == nil {
		return nil
	}
	var alive []*appsv1.ReplicaSet
	for _, rs := range old {
		if rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	excess := len(alive) - int(*p.d.Spec.RevisionHistoryLimit)
	if excess <= 0 {
		return nil
	}
	byRevision(alive)
	for _, rs := range alive[:excess] {
		if rs.Status.Replicas != 0 || specReplicas(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		err := p.c.client.Delete(ctx, replicaSetsRes, rs.Namespace, rs.Name,
			controllers.DeleteOptions{UID: string(rs.UID)})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete old replica set %s: %w", rs.Name, err)
		}
	}
	return nil
}
