package eviction

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// violation is a pod over one of its own local-storage limits, with the
// kubelet's message for it.
type violation struct {
	uid     types.UID
	message string
}

// overLimits finds the pods over an emptyDir sizeLimit, over the sum of
// their containers' ephemeral-storage limits, or with a container over
// its own limit, checked in that order as the kubelet does (one
// violation per pod).
func overLimits(usage []PodUsage) []violation {
	var out []violation
	for _, u := range usage {
		if msg := firstOver(u); msg != "" {
			out = append(out, violation{uid: u.Pod.UID, message: msg})
		}
	}
	return out
}

func firstOver(u PodUsage) string {
	for _, v := range u.Pod.Spec.Volumes {
		if v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.IsZero() {
			continue
		}
		if u.EmptyDirs[v.Name] > v.EmptyDir.SizeLimit.Value() {
			return fmt.Sprintf("Usage of EmptyDir volume %q exceeds the limit %q. ", v.Name, v.EmptyDir.SizeLimit.String())
		}
	}
	if limit, ok := podStorageLimit(u.Pod); ok && u.Disk > limit.Value() {
		return fmt.Sprintf("Pod ephemeral local storage usage exceeds the total limit of containers %s. ", limit.String())
	}
	for _, c := range u.Pod.Spec.Containers {
		l, ok := c.Resources.Limits[corev1.ResourceEphemeralStorage]
		if ok && !l.IsZero() && u.Containers[c.Name] > l.Value() {
			return fmt.Sprintf("Container %s exceeded its local ephemeral storage limit %q. ", c.Name, l.String())
		}
	}
	return ""
}

// podStorageLimit is the sum of the app containers' ephemeral-storage
// limits when every one of them sets one.
func podStorageLimit(pod *corev1.Pod) (resource.Quantity, bool) {
	var sum resource.Quantity
	for _, c := range pod.Spec.Containers {
		l, ok := c.Resources.Limits[corev1.ResourceEphemeralStorage]
		if !ok || l.IsZero() {
			return resource.Quantity{}, false
		}
		sum.Add(l)
	}
	return sum, len(pod.Spec.Containers) > 0
}

// requests sums the app containers' requests of r (0 when none sets it).
func requests(pod *corev1.Pod, r corev1.ResourceName) int64 {
	var n int64
	for _, c := range pod.Spec.Containers {
		if q, ok := c.Resources.Requests[r]; ok {
			n += q.Value()
		}
	}
	return n
}
