package scheduler

// preferredAffinity honours preferredDuringSchedulingIgnoredDuringExecution
// node affinity: a node scores the sum of the weights of the preferred
// terms it matches, normalized so the best feasible node gets 100.
type preferredAffinity struct{}

func (preferredAffinity) score(c *cycle, n *nodeInfo) int64 {
	var sum int64
	for i := range c.pod.preferred {
		if c.pod.preferred[i].term.matches(n.labels, n.name) {
			sum += c.pod.preferred[i].weight
		}
	}
	return sum
}

func (preferredAffinity) normalize(scores []int64) { normalizeToMax(scores) }
