package scheduler

import (
	corev1 "k8s.io/api/core/v1"
)

// resourceSet is an amount of the resources the scheduler accounts for:
// CPU in millicores, memory and ephemeral storage in bytes.
type resourceSet struct {
	milliCPU  int64
	memory    int64
	ephemeral int64
}

func (r *resourceSet) add(o resourceSet) {
	r.milliCPU += o.milliCPU
	r.memory += o.memory
	r.ephemeral += o.ephemeral
}

func (r *resourceSet) sub(o resourceSet) {
	r.milliCPU -= o.milliCPU
	r.memory -= o.memory
	r.ephemeral -= o.ephemeral
}

// maxOf raises each resource of r to o's where o's is larger.
func (r *resourceSet) maxOf(o resourceSet) {
	r.milliCPU = max(r.milliCPU, o.milliCPU)
	r.memory = max(r.memory, o.memory)
	r.ephemeral = max(r.ephemeral, o.ephemeral)
}

// isZero reports whether nothing is asked for.
func (r resourceSet) isZero() bool {
	return r.milliCPU == 0 && r.memory == 0 && r.ephemeral == 0
}

// Scoring counts a container that requests no CPU or memory as if it asked
// for these, as kube-scheduler does, so that nodes full of request-less pods
// do not look empty.
const (
	defaultMilliCPURequest int64 = 100
	defaultMemoryRequest   int64 = 200 << 20
)

// resourcesOf reads the three accounted resources from a list.
func resourcesOf(l corev1.ResourceList) resourceSet {
	return resourceSet{
		milliCPU:  milli(l, corev1.ResourceCPU),
		memory:    value(l, corev1.ResourceMemory),
		ephemeral: value(l, corev1.ResourceEphemeralStorage),
	}
}

func milli(l corev1.ResourceList, name corev1.ResourceName) int64 {
	if q, ok := l[name]; ok {
		return q.MilliValue()
	}
	return 0
}

func value(l corev1.ResourceList, name corev1.ResourceName) int64 {
	if q, ok := l[name]; ok {
		return q.Value()
	}
	return 0
}

// nonZeroOf is resourcesOf with the scoring defaults for CPU and memory
// filled in where the container does not ask for them.
func nonZeroOf(l corev1.ResourceList) resourceSet {
	r := resourcesOf(l)
	if _, ok := l[corev1.ResourceCPU]; !ok {
		r.milliCPU = defaultMilliCPURequest
	}
	if _, ok := l[corev1.ResourceMemory]; !ok {
		r.memory = defaultMemoryRequest
	}
	return r
}

// podRequests computes what a pod asks of a node the way Kubernetes does:
// the containers run together, so their requests add up; regular init
// containers run one at a time before them, each alongside the restartable
// (sidecar) init containers started so far; the pod needs the larger of the
// two phases, plus its overhead. of picks the resources from a container's
// requests (resourcesOf, or nonZeroOf for scoring).
func podRequests(spec *corev1.PodSpec, of func(corev1.ResourceList) resourceSet) resourceSet {
	var total resourceSet
	for i := range spec.Containers {
		total.add(of(spec.Containers[i].Resources.Requests))
	}
	var sidecars, initPhase resourceSet
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		req := of(c.Resources.Requests)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			total.add(req)
			sidecars.add(req)
			initPhase.maxOf(sidecars)
			continue
		}
		req.add(sidecars)
		initPhase.maxOf(req)
	}
	total.maxOf(initPhase)
	total.add(resourcesOf(spec.Overhead))
	return total
}

// allocatableOf reads what a node offers to pods: status.allocatable, or
// status.capacity when a node reports no allocatable (as the API server
// defaults it). A node that reports no pod count gets kubelet's default.
func allocatableOf(st *corev1.NodeStatus) (resourceSet, int64) {
	l := st.Allocatable
	if len(l) == 0 {
		l = st.Capacity
	}
	pods := int64(defaultMaxPods)
	if q, ok := l[corev1.ResourcePods]; ok {
		pods = q.Value()
	}
	return resourcesOf(l), pods
}

// defaultMaxPods is kubelet's default --max-pods.
const defaultMaxPods = 110
