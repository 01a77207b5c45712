package nodestatus

import (
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/mqtt"
)

// view is the part of a Node's status a user would notice changing: which
// way each condition points (and why), the addresses, the system info, the
// images, and the resource figures (compared with a tolerance). Condition
// messages and times, and the temperature, are left out: they move all the
// time and are no reason to write.
type view struct {
	conds       map[corev1.NodeConditionType]condState
	addresses   []corev1.NodeAddress
	info        corev1.NodeSystemInfo
	images      []corev1.ContainerImage
	capacity    corev1.ResourceList
	allocatable corev1.ResourceList
}

type condState struct {
	status corev1.ConditionStatus
	reason string
}

// statusView is the view of a stored (or about to be stored) NodeStatus.
func statusView(s *corev1.NodeStatus) *view {
	v := &view{conds: make(map[corev1.NodeConditionType]condState, len(s.Conditions)),
		addresses: s.Addresses, info: s.NodeInfo, images: s.Images,
		capacity: s.Capacity, allocatable: s.Allocatable}
	for _, c := range s.Conditions {
		v.conds[c.Type] = condState{c.Status, c.Reason}
	}
	return v
}

// reportView is the view of what a heartbeat reports.
func reportView(r *mqtt.NodeReport) *view {
	v := &view{conds: make(map[corev1.NodeConditionType]condState, len(r.Conditions)),
		addresses: r.Addresses, info: r.NodeInfo, images: r.Images,
		capacity: r.Capacity, allocatable: r.Allocatable}
	for _, c := range r.Conditions {
		v.conds[c.Type] = condState{c.Status, c.Reason}
	}
	return v
}

// differs reports whether next shows a user something the written view w
// does not: a condition next has that points elsewhere (conditions next
// does not mention are not its business), other addresses, system info or
// images, or a resource figure added, removed or moved by more than the
// fraction tolerance.
func (w *view) differs(next *view, tolerance float64) bool {
	for t, c := range next.conds {
		if old, ok := w.conds[t]; !ok || old != c {
			return true
		}
	}
	switch {
	case !slices.Equal(w.addresses, next.addresses),
		w.info != next.info,
		!imagesEqual(w.images, next.images):
		return true
	}
	return resourcesMoved(w.capacity, next.capacity, tolerance) ||
		resourcesMoved(w.allocatable, next.allocatable, tolerance)
}

func imagesEqual(a, b []corev1.ContainerImage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].SizeBytes != b[i].SizeBytes || !slices.Equal(a[i].Names, b[i].Names) {
			return false
		}
	}
	return true
}

// resourcesMoved reports a resource added or removed, or one whose figure
// moved by more than tolerance of the written one.
func resourcesMoved(old, next corev1.ResourceList, tolerance float64) bool {
	if len(old) != len(next) {
		return true
	}
	for name, q := range next {
		o, ok := old[name]
		if !ok {
			return true
		}
		if moved(o, q, tolerance) {
			return true
		}
	}
	return false
}

func moved(old, next resource.Quantity, tolerance float64) bool {
	if old.Cmp(next) == 0 {
		return false
	}
	a, b := old.AsApproximateFloat64(), next.AsApproximateFloat64()
	if a == 0 {
		return true
	}
	return math.Abs(b-a) > tolerance*math.Abs(a)
}

// podStatusEqual compares pod statuses as the API would store them. Most
// reports that get here change the phase or a condition: that is seen
// first, with no reflection and no allocation.
func podStatusEqual(a, b *corev1.PodStatus) bool {
	return !plainlyDiffer(a, b) && equality.Semantic.DeepEqual(a, b)
}

// plainlyDiffer reports a difference in the fields a pod's life changes
// most (phase, reason, IPs, the conditions' types and statuses, the
// number of container statuses); false says nothing.
func plainlyDiffer(a, b *corev1.PodStatus) bool {
	if a.Phase != b.Phase || a.Reason != b.Reason || a.Message != b.Message || a.PodIP != b.PodIP || a.HostIP != b.HostIP ||
		len(a.Conditions) != len(b.Conditions) || len(a.ContainerStatuses) != len(b.ContainerStatuses) ||
		len(a.InitContainerStatuses) != len(b.InitContainerStatuses) {
		return true
	}
	for i := range a.Conditions {
		if a.Conditions[i].Type != b.Conditions[i].Type || a.Conditions[i].Status != b.Conditions[i].Status {
			return true
		}
	}
	for i := range a.ContainerStatuses {
		if a.ContainerStatuses[i].Ready != b.ContainerStatuses[i].Ready || a.ContainerStatuses[i].RestartCount != b.ContainerStatuses[i].RestartCount {
			return true
		}
	}
	return false
}
