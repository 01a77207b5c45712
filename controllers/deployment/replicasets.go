package deployment

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Small read-only helpers over a Deployment's ReplicaSets. Nil entries
// (no new ReplicaSet yet) are skipped everywhere.

func specReplicas(rs *appsv1.ReplicaSet) int32 {
	if rs == nil || rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}

func sumSpec(rss ...*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		n += specReplicas(rs)
	}
	return n
}

// sumStatus adds one status counter over the ReplicaSets.
func sumStatus(field func(*appsv1.ReplicaSetStatus) int32, rss ...*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += field(&rs.Status)
		}
	}
	return n
}

func statusReplicas(s *appsv1.ReplicaSetStatus) int32  { return s.Replicas }
func statusReady(s *appsv1.ReplicaSetStatus) int32     { return s.ReadyReplicas }
func statusAvailable(s *appsv1.ReplicaSetStatus) int32 { return s.AvailableReplicas }

// active are the ReplicaSets asked for at least one pod.
func active(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if specReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

func withNew(old []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	all := append([]*appsv1.ReplicaSet(nil), old...)
	if newRS != nil {
		all = append(all, newRS)
	}
	return all
}

// olderFirst orders by creation time, then name.
func olderFirst(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool { return older(rss[i], rss[j]) })
}

func older(a, b *appsv1.ReplicaSet) bool {
	ta, tb := a.CreationTimestamp, b.CreationTimestamp
	if ta.Equal(&tb) {
		return a.Name < b.Name
	}
	return ta.Before(&tb)
}

// byRevision orders by revision, then age: cleanup deletes from the front.
func byRevision(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool {
		ri, rj := revisionOf(rss[i]), revisionOf(rss[j])
		if ri == rj {
			return older(rss[i], rss[j])
		}
		return ri < rj
	})
}

// bySize orders largest first; among equals newer first when growing,
// older first when shrinking.
func bySize(rss []*appsv1.ReplicaSet, growing bool) {
	sort.SliceStable(rss, func(i, j int) bool {
		si, sj := specReplicas(rss[i]), specReplicas(rss[j])
		if si != sj {
			return si > sj
		}
		if growing {
			return older(rss[j], rss[i])
		}
		return older(rss[i], rss[j])
	})
}

// split finds the new ReplicaSet (the oldest whose template means the
// Deployment's template) and the others.
func split(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) {
	sorted := append([]*appsv1.ReplicaSet(nil), rss...)
	olderFirst(sorted)
	for _, rs := range sorted {
		if newRS == nil && EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
			continue
		}
		old = append(old, rs)
	}
	return newRS, old
}

// fenceposts are the Deployment's resolved surge and unavailable counts
// (0, 0 for Recreate; unavailable 0 when replicas is 0).
func fenceposts(d *appsv1.Deployment) (surge, unavailable int32) {
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil {
		return 0, 0
	}
	replicas := desired(d)
	s, u, err := Fenceposts(ru.MaxSurge, ru.MaxUnavailable, replicas)
	if err != nil { // validation refuses these; fall back to one at a time
		one := intstr.FromInt32(1)
		s, u, _ = Fenceposts(&one, nil, replicas)
	}
	if replicas == 0 {
		u = 0
	}
	return s, u
}

func desired(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// podTerminal reports whether a pod has stopped for good.
func podTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}
