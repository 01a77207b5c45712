package scheduler

// podCount keeps a node from holding more pods than its allocatable
// "pods" (kubelet's --max-pods; 110 when the node does not say).
type podCount struct{}

func (podCount) filter(c *cycle, n *nodeInfo) []string {
	if int64(n.podCount())+1 > n.maxPods {
		return reasonTooManyPods
	}
	return nil
}
