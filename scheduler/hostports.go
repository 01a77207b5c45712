package scheduler

// hostPorts keeps a pod off nodes where a port it binds on the host is
// already taken by another pod (podinfo.go says which ports count).
type hostPorts struct{}

func (hostPorts) filter(c *cycle, n *nodeInfo) []string {
	if len(c.pod.ports) > 0 && !n.portFree(c.pod.ports) {
		return reasonHostPorts
	}
	return nil
}
