package scheduler

// taintToleration keeps pods off nodes with a NoSchedule or NoExecute taint
// they do not tolerate. PreferNoSchedule taints never reject a node (the
// node's static part does not even keep them). A toleration matches when
// its effect is empty or equal, its key is empty (with Exists: every taint)
// or equal, and its operator is Exists or its value is equal (Equal, the
// default).
type taintToleration struct{}

func (taintToleration) filter(c *cycle, n *nodeInfo) []string {
	tolerations := c.pod.pod.Spec.Tolerations
	for i := range n.taints {
		if !tolerated(tolerations, &n.taints[i]) {
			return n.taintReasons[i]
		}
	}
	return nil
}
