package scheduler

// leastAllocated prefers the node with the most CPU and memory left after
// placing the pod: per resource (allocatable - requested) * 100 /
// allocatable, the two averaged. Requests here count request-less
// containers at 100m CPU and 200 MiB, as kube-scheduler does.
type leastAllocated struct{}

func (leastAllocated) score(c *cycle, n *nodeInfo) int64 {
	cpu := freeShare(n.alloc.milliCPU, n.nonZero.milliCPU+c.pod.nonZero.milliCPU)
	mem := freeShare(n.alloc.memory, n.nonZero.memory+c.pod.nonZero.memory)
	return (cpu + mem) / 2
}

// freeShare is the share of capacity left free, 0..100.
func freeShare(capacity, requested int64) int64 {
	if capacity <= 0 || requested >= capacity {
		return 0
	}
	return (capacity - requested) * maxScore / capacity
}
