package scheduler

// nodeSelector keeps pods on nodes that match their spec.nodeSelector and
// their required node affinity (nodeaffinity.go compiles both once per pod).
type nodeSelector struct{}

func (nodeSelector) filter(c *cycle, n *nodeInfo) []string {
	if m := c.pod.nodes; m != nil && !m.matches(n.labels, n.name) {
		return reasonNodeAffinity
	}
	return nil
}
