package scheduler

// nodeSelector keeps pods on nodes that match their spec.nodeSelector and
// their required node affinity (api.NodeMatcher, compiled once per pod in
// newPodInfo; the DaemonSet controller places pods by the same rule).
type nodeSelector struct{}

func (nodeSelector) filter(c *cycle, n *nodeInfo) []string {
	if m := c.pod.nodes; m != nil && !m.Matches(n.labels, n.name) {
		return reasonNodeAffinity
	}
	return nil
}
