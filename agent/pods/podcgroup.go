package pods

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// podCgrouper is a runtime that gives pods a cgroup of their own, the
// parent of their containers' (runtime.Containerd does).
type podCgrouper interface {
	EnsurePodCgroup(ctx context.Context, podUID string, r runtime.PodResources) error
	RemovePodCgroup(ctx context.Context, podUID string) error
}

// ensurePodCgroup makes the pod's cgroup with the kubelet's pod-level
// limits before its first container starts. A host where it cannot be
// made runs the containers directly under the namespace's cgroup, as
// before pod cgroups, and says so once.
func (w *worker) ensurePodCgroup(ctx context.Context, pod *corev1.Pod) {
	pc, ok := w.m.rt.(podCgrouper)
	if !ok || w.podCgroup || w.podCgroupErr != nil {
		return
	}
	if err := pc.EnsurePodCgroup(ctx, string(pod.UID), podResources(pod)); err != nil {
		w.log.Warn("pod cgroup: containers go without one", "err", err)
		w.podCgroupErr = err
		return
	}
	w.podCgroup = true
}

// removePodCgroup removes the pod's cgroup once its containers are gone.
func (m *Manager) removePodCgroup(ctx context.Context, pod *corev1.Pod) {
	if pc, ok := m.rt.(podCgrouper); ok {
		if err := pc.RemovePodCgroup(ctx, string(pod.UID)); err != nil {
			m.log.Warn("remove pod cgroup", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		}
	}
}

// podResources are the pod cgroup's limits as the kubelet sets them: for
// each resource the larger of the app containers' (sidecars included)
// sum and the largest init container's, plus the pod's overhead. Memory
// and CPU limits are set only when every container has one; CPU shares
// follow the requests (2, the minimum, for a BestEffort pod).
func podResources(pod *corev1.Pod) runtime.PodResources {
	memL, memOK := effective(pod, corev1.ResourceMemory, true)
	cpuL, cpuOK := effective(pod, corev1.ResourceCPU, true)
	cpuR, _ := effective(pod, corev1.ResourceCPU, false)
	over := pod.Spec.Overhead
	var r runtime.PodResources
	if memOK {
		r.MemoryLimit = memL.Value() + over.Memory().Value()
	}
	if cpuOK {
		r.CPUQuota, r.CPUPeriod = max((cpuL.MilliValue()+over.Cpu().MilliValue())*100, 1000), 100000
	}
	r.CPUShares = uint64(max((cpuR.MilliValue()+over.Cpu().MilliValue())*1024/1000, 2))
	return r
}

// effective sums a resource's limits (or requests) over the app
// containers and sidecars, takes the larger of that and any regular init
// container's; ok is false when a limit is wanted and one is missing.
func effective(pod *corev1.Pod, name corev1.ResourceName, limits bool) (resource.Quantity, bool) {
	get := func(c *corev1.Container) (resource.Quantity, bool) {
		l := c.Resources.Requests
		if limits {
			l = c.Resources.Limits
		}
		q, ok := l[name]
		return q, ok || !limits
	}
	var sum, initMax resource.Quantity
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		q, ok := get(c)
		if !ok {
			return resource.Quantity{}, false
		}
		if isSidecar(c) {
			sum.Add(q)
		} else if q.Cmp(initMax) > 0 {
			initMax = q
		}
	}
	for i := range pod.Spec.Containers {
		q, ok := get(&pod.Spec.Containers[i])
		if !ok {
			return resource.Quantity{}, false
		}
		sum.Add(q)
	}
	if initMax.Cmp(sum) > 0 {
		return initMax, true
	}
	return sum, true
}
