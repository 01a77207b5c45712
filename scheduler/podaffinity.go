package scheduler

// podAffinity enforces required pod affinity: for every term, the node's
// topology domain must already hold a pod the term selects (a pod counts
// only if it is selected by all of the pod's terms, as in kube-scheduler).
// The first pod of a group that is attracted to itself would wait forever,
// so, as in kube-scheduler, when no pod anywhere is selected and the pod
// matches its own terms, any node carrying the topology labels will do.
//
// The domains holding selected pods are found once per cycle by walking
// every pod in the snapshot, which costs time in proportion to the pods in
// the cluster; only pods that have required affinity pay it.
type podAffinity struct{}

func (podAffinity) filter(c *cycle, n *nodeInfo) []string {
	terms := c.pod.affinity
	if len(terms) == 0 {
		return nil
	}
	found := true
	for i := range terms {
		v, ok := topologyValue(n.nodeStatic, terms[i].topologyKey)
		if !ok {
			return reasonAffinity // the node is in no domain of that key
		}
		found = found && c.affinityDomains[domain{key: terms[i].topologyKey, value: v}]
	}
	if found || (len(c.affinityDomains) == 0 && c.selfAffine) {
		return nil
	}
	return reasonAffinity
}

// prepareAffinity finds the domains holding pods the incoming pod's
// required affinity selects.
func (c *cycle) prepareAffinity(s *snapshot) {
	clear(c.affinityDomains)
	terms := c.pod.affinity
	if len(terms) == 0 {
		return
	}
	if c.affinityDomains == nil {
		c.affinityDomains = map[domain]bool{}
	}
	c.selfAffine = selectedByAll(terms, c.pod)
	for _, n := range s.list {
		for _, other := range n.pods {
			if other.key == c.pod.key || !selectedByAll(terms, other) {
				continue
			}
			for i := range terms {
				if v, ok := topologyValue(n.nodeStatic, terms[i].topologyKey); ok {
					c.affinityDomains[domain{key: terms[i].topologyKey, value: v}] = true
				}
			}
		}
	}
}

// selectedByAll reports whether every term selects p.
func selectedByAll(terms []podTerm, p *podInfo) bool {
	for i := range terms {
		if !terms[i].selects(p) {
			return false
		}
	}
	return true
}
