package eviction

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// criticalPriority is system-cluster-critical's priority: pods at or
// above it are not evicted for node pressure, as the kubelet's critical
// pods are not.
const criticalPriority = 2000000000

// candidate is a pod ranked for one pressured resource.
type candidate struct {
	pod     PodUsage
	usage   int64 // of the resource; 0 when not measured (memory)
	request int64
}

func (c candidate) exceeds() bool { return c.request == 0 || c.usage > c.request }

// rank orders the pods as the kubelet does for r: those using more than
// they requested first (every BestEffort pod: it requests nothing), then
// lower priority first, then by usage above the request, largest first.
// Memory use is the pod cgroup's working set; a pod without one counts
// as using nothing.
func rank(usage []PodUsage, r corev1.ResourceName) []candidate {
	out := make([]candidate, 0, len(usage))
	for _, u := range usage {
		if priority(u.Pod) >= criticalPriority {
			continue
		}
		c := candidate{pod: u, request: requests(u.Pod, r)}
		c.usage = u.Memory
		if r == corev1.ResourceEphemeralStorage {
			c.usage = u.Disk
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		if a.exceeds() != b.exceeds() {
			if a.exceeds() {
				return -1
			}
			return 1
		}
		if p := cmp.Compare(priority(a.pod.Pod), priority(b.pod.Pod)); p != 0 {
			return p
		}
		return cmp.Compare(b.usage-b.request, a.usage-a.request)
	})
	return out
}

func priority(pod *corev1.Pod) int32 {
	if pod.Spec.Priority == nil {
		return 0
	}
	return *pod.Spec.Priority
}

// message is the kubelet's eviction message for c under signal s.
func (s signal) message(c candidate) string {
	msg := fmt.Sprintf("The node was low on resource: %s. Threshold quantity: %s, available: %s. ",
		s.resource, qty(s.threshold), qty(s.available))
	if s.resource != corev1.ResourceEphemeralStorage {
		return msg
	}
	for _, ct := range c.pod.Pod.Spec.Containers {
		used := c.pod.Containers[ct.Name]
		req := ct.Resources.Requests[corev1.ResourceEphemeralStorage]
		if used > req.Value() {
			msg += fmt.Sprintf("Container %s was using %s, request is %s, has larger consumption of %s. ",
				ct.Name, qty(used), req.String(), s.resource)
		}
	}
	return msg
}

func qty(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }
