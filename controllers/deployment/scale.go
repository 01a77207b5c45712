package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// scaleTo sets rs's size to n (and its size annotations); an event names
// the change. It returns rs as stored.
func (p *pass) scaleTo(ctx context.Context, rs *appsv1.ReplicaSet, n int32) (*appsv1.ReplicaSet, error) {
	rs = p.one(rs)
	from := specReplicas(rs)
	surge, _ := fenceposts(p.d)
	size := from != n
	if !size && !replicasAnnotationsStale(rs, desired(p.d), desired(p.d)+surge) {
		return rs, nil
	}
	cp := rs.DeepCopy()
	cp.Spec.Replicas = &n
	setReplicasAnnotations(cp, desired(p.d), desired(p.d)+surge)
	out, err := p.update(ctx, cp)
	if err != nil {
		return nil, err
	}
	if size {
		op := "up"
		if n < from {
			op = "down"
		}
		p.c.recorder.Eventf(p.d, corev1.EventTypeNormal, "ScalingReplicaSet",
			"Scaled %s replica set %s from %d to %d", op, rs.Name, from, n)
	}
	return out, nil
}

// scale sizes the ReplicaSets for the Deployment's current replicas
// without advancing a rollout: one active (or the latest) ReplicaSet takes
// them all; a saturated new ReplicaSet empties the old; otherwise, in a
// rolling update, the change is spread in proportion to current sizes so
// that replicas+maxSurge bounds the total. (Recreate mid-rollout waits
// for its own step.)
func (p *pass) scale(ctx context.Context, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) error {
	if rs := activeOrLatest(newRS, old); rs != nil {
		_, err := p.scaleTo(ctx, rs, desired(p.d))
		return err
	}
	if saturated(p.d, newRS) {
		for _, rs := range active(old) {
			if _, err := p.scaleTo(ctx, rs, 0); err != nil {
				return err
			}
		}
		return nil
	}
	if p.d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return nil
	}
	return p.proportional(ctx, active(withNew(old, newRS)))
}

func (p *pass) proportional(ctx context.Context, all []*appsv1.ReplicaSet) error {
	surge, _ := fenceposts(p.d)
	var allowed int32
	if desired(p.d) > 0 {
		allowed = desired(p.d) + surge
	}
	bySize(all, allowed > sumSpec(all...))
	shares := make([]Share, len(all))
	for i, rs := range all {
		maxReplicas, _ := annotatedInt(rs, MaxReplicasAnnotation)
		shares[i] = Share{Replicas: specReplicas(rs), MaxReplicas: maxReplicas}
	}
	sizes := Proportional(allowed, p.d.Status.Replicas, shares)
	for i, rs := range all {
		if _, err := p.scaleTo(ctx, rs, sizes[i]); err != nil {
			return err
		}
	}
	return nil
}

// activeOrLatest is the one ReplicaSet that should hold every replica when
// at most one is active: that one, or else the new, or else the newest old.
func activeOrLatest(newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	act := active(withNew(old, newRS))
	switch {
	case len(act) == 1:
		return act[0]
	case len(act) > 1:
		return nil
	case newRS != nil:
		return newRS
	case len(old) == 0:
		return nil
	}
	sorted := append([]*appsv1.ReplicaSet(nil), old...)
	olderFirst(sorted)
	return sorted[len(sorted)-1]
}

// saturated: the new ReplicaSet has every replica, all of them available.
func saturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	want, ok := annotatedInt(rs, DesiredReplicasAnnotation)
	return ok && want == desired(d) && specReplicas(rs) == desired(d) &&
		rs.Status.AvailableReplicas == desired(d)
}
