package replicaset

import (
	"cmp"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/bramble-edge/bramble/api"
)

// isActive: the pod counts towards replicas. Pods that are going
// (deletionTimestamp) or finished (Succeeded, Failed) do not.
func isActive(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil &&
		p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

func isReady(p *corev1.Pod) bool {
	c := api.PodCondition(p, corev1.PodReady)
	return c != nil && c.Status == corev1.ConditionTrue
}

// availableIn is how long until a ready pod has been ready for minReady:
// zero or less means available now. ok is false for a pod that is not ready.
func availableIn(p *corev1.Pod, minReady time.Duration, now time.Time) (wait time.Duration, ok bool) {
	c := api.PodCondition(p, corev1.PodReady)
	if c == nil || c.Status != corev1.ConditionTrue {
		return 0, false
	}
	if minReady <= 0 {
		return 0, true
	}
	if c.LastTransitionTime.IsZero() {
		return minReady, true // not known since when: wait the whole time from now
	}
	return c.LastTransitionTime.Add(minReady).Sub(now), true
}

// deleteOrder sorts pods so the first are the ones to delete first, the
// ordering of kube's ActivePods simplified: unscheduled before scheduled;
// Pending before Unknown before Running; not ready before ready; ready for
// less time before longer; more container restarts before fewer; newer
// before older; then by name, so the order is total. Kube also ranks by
// how many sibling pods share a node; bramble does not.
func deleteOrder(a, b *corev1.Pod) int {
	if as, bs := a.Spec.NodeName != "", b.Spec.NodeName != ""; as != bs {
		return boolOrder(as, bs)
	}
	if c := cmp.Compare(phaseRank(a.Status.Phase), phaseRank(b.Status.Phase)); c != 0 {
		return c
	}
	if ar, br := isReady(a), isReady(b); ar != br {
		return boolOrder(ar, br)
	} else if ar {
		ta, tb := api.PodCondition(a, corev1.PodReady).LastTransitionTime, api.PodCondition(b, corev1.PodReady).LastTransitionTime
		if c := tb.Time.Compare(ta.Time); c != 0 {
			return c // later transition = ready for less time = first
		}
	}
	if c := cmp.Compare(restarts(b), restarts(a)); c != 0 {
		return c
	}
	if c := b.CreationTimestamp.Time.Compare(a.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// boolOrder puts false before true.
func boolOrder(a, b bool) int {
	if a == b {
		return 0
	}
	if !a {
		return -1
	}
	return 1
}

func phaseRank(p corev1.PodPhase) int {
	switch p {
	case corev1.PodPending, "":
		return 0
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	}
	return 3
}

func restarts(p *corev1.Pod) int32 {
	var n int32
	for _, s := range p.Status.ContainerStatuses {
		n += s.RestartCount
	}
	return n
}

// podsToDelete picks n pods, the first in deleteOrder.
func podsToDelete(pods []*corev1.Pod, n int) []*corev1.Pod {
	sorted := slices.Clone(pods)
	slices.SortFunc(sorted, deleteOrder)
	return sorted[:min(n, len(sorted))]
}

var replicaSetKind = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")

// newPod is a pod from rs's template, controlled by rs.
func newPod(rs *appsv1.ReplicaSet) *corev1.Pod {
	t := &rs.Spec.Template
	prefix := rs.Name + "-"
	if len(validation.IsDNS1123Subdomain(prefix+"x")) > 0 {
		prefix = rs.Name
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    prefix,
			Namespace:       rs.Namespace,
			Labels:          maps.Clone(t.Labels),
			Annotations:     maps.Clone(t.Annotations),
			Finalizers:      slices.Clone(t.Finalizers),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, replicaSetKind)},
		},
		Spec: *t.Spec.DeepCopy(),
	}
}
