package scheduler

// balancedAllocation prefers nodes whose CPU and memory would be used in
// equal shares after placing the pod, so that neither runs out while the
// other sits idle. With the used fractions f(cpu) and f(mem) (capped at 1)
// the standard deviation of the two is |f(cpu) - f(mem)| / 2 and the score
// is (1 - that) * 100, as in kube-scheduler.
type balancedAllocation struct{}

func (balancedAllocation) score(c *cycle, n *nodeInfo) int64 {
	cpu := usedFraction(n.alloc.milliCPU, n.nonZero.milliCPU+c.pod.nonZero.milliCPU)
	mem := usedFraction(n.alloc.memory, n.nonZero.memory+c.pod.nonZero.memory)
	diff := cpu - mem
	if diff < 0 {
		diff = -diff
	}
	return int64((1 - diff/2) * maxScore)
}

// usedFraction is requested / capacity, capped at 1 (a node without
// capacity counts as full).
func usedFraction(capacity, requested int64) float64 {
	if capacity <= 0 || requested >= capacity {
		return 1
	}
	return float64(requested) / float64(capacity)
}
