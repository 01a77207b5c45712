package scheduler

// antiAffinity enforces required pod anti-affinity both ways:
//
//   - the incoming pod's own terms keep it out of domains holding a pod they
//     select ("node(s) didn't match pod anti-affinity rules");
//   - existing pods whose anti-affinity selects the incoming pod keep it out
//     of their topology domain ("node(s) didn't satisfy existing pods
//     anti-affinity rules"). kube-scheduler checks in this order too.
//
// For topologyKey kubernetes.io/hostname the domain is the node itself and
// the check looks at the node's pods only. For other keys (a zone) the
// domains holding selected pods are found once per cycle (cycle.go).
type antiAffinity struct{}

func (antiAffinity) filter(c *cycle, n *nodeInfo) []string {
	for i := range c.pod.anti {
		if c.antiTermHits(i, n) {
			return reasonAntiAffinity
		}
	}
	for _, d := range c.forbidden {
		if v, ok := topologyValue(n.nodeStatic, d.key); ok && v == d.value {
			return reasonExistingAntiAffi
		}
	}
	return nil
}

// antiTermHits reports whether term i of the incoming pod selects a pod in
// the node's domain.
func (c *cycle) antiTermHits(i int, n *nodeInfo) bool {
	t := &c.pod.anti[i]
	v, ok := topologyValue(n.nodeStatic, t.topologyKey)
	if !ok {
		return false // the node is in no domain of that key
	}
	if t.topologyKey != hostnameKey {
		return c.antiDomains[i][v]
	}
	for _, other := range n.pods {
		if other.key != c.pod.key && t.selects(other) {
			return true
		}
	}
	return false
}

// domain is one value of one topology key.
type domain struct {
	key, value string
}

// prepareAntiAffinity fills in the cycle's anti-affinity state from the
// snapshot: the domains existing pods forbid to the incoming pod, and for
// each of its own non-hostname terms the domains holding a pod it selects.
func (c *cycle) prepareAntiAffinity(s *snapshot) {
	c.forbidden = c.forbidden[:0]
	for _, n := range s.antiNodes {
		for _, other := range n.pods {
			for i := range other.anti {
				t := &other.anti[i]
				if other.key == c.pod.key || !t.selects(c.pod) {
					continue
				}
				if v, ok := topologyValue(n.nodeStatic, t.topologyKey); ok {
					c.forbidden = append(c.forbidden, domain{key: t.topologyKey, value: v})
				}
			}
		}
	}
	c.antiDomains = c.antiDomains[:0]
	for i := range c.pod.anti {
		c.antiDomains = append(c.antiDomains, c.domainsSelectedBy(&c.pod.anti[i], s))
	}
}

// domainsSelectedBy walks every pod in the snapshot, so it runs only for
// terms whose key is not the hostname (zone anti-affinity is rare).
func (c *cycle) domainsSelectedBy(t *podTerm, s *snapshot) map[string]bool {
	if t.topologyKey == hostnameKey {
		return nil
	}
	out := map[string]bool{}
	for _, n := range s.list {
		v, ok := topologyValue(n.nodeStatic, t.topologyKey)
		if !ok || out[v] {
			continue
		}
		for _, other := range n.pods {
			if other.key != c.pod.key && t.selects(other) {
				out[v] = true
				break
			}
		}
	}
	return out
}
