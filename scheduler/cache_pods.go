package scheduler

// addPod counts (or recounts) a pod the watch shows bound to a node. A pod
// the scheduler had assumed is confirmed, on whatever node the watch says.
// A terminated pod stops being counted. It reports whether resources were
// freed on some node: the pod ended, or it is bound elsewhere than assumed.
func (c *cache) addPod(p *podInfo) bool {
	node := p.pod.Spec.NodeName
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[p.key]
	if p.terminal {
		if ok {
			c.unplace(st)
		}
		return ok
	}
	freed := false
	if ok {
		if st.node == node && st.info.uid == p.uid && sameAccount(st.info, p) && c.swap(st, p) {
			return false
		}
		freed = st.node != node || st.info.uid != p.uid
		c.unplace(st)
	}
	c.place(p, node, false)
	return freed
}

// swap puts p, a new version of the pod counted as st on the same node
// and counted the same, in the place of st's: the scheduler's own binding
// coming back from the watch, or a status change. The node's sums stay;
// the node is still touched, so the snapshot gets the new version (its
// labels and binding matter to affinity and preemption). False when the
// node does not count the pod (the caller then recounts it).
func (c *cache) swap(st *podState, p *podInfo) bool {
	item, ok := c.nodes[st.node]
	if !ok || !item.info.swapPod(st.info, p) {
		return false
	}
	st.info, st.assumed = p, false
	c.touch(item)
	return true
}

// removePod stops counting a deleted pod; it reports whether it was
// counted.
func (c *cache) removePod(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[key]
	if ok {
		c.unplace(st)
	}
	return ok
}

// counted reports where a pod is counted and whether it is only assumed.
func (c *cache) counted(key string) (node string, assumed, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[key]
	if !ok {
		return "", false, false
	}
	return st.node, st.assumed, true
}

// updateSnapshot brings s up to date: nodes changed since s was last
// updated are cloned into it; when nodes came or went, its membership and
// order are rebuilt too.
func (c *cache) updateSnapshot(s *snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.setGen != c.setGen {
		c.resync(s)
	} else {
		for it := c.head; it != nil && it.info.gen > s.gen; it = it.next {
			if it.info.node != nil {
				s.replace(it.info.clone())
			}
		}
	}
	s.gen, s.setGen = c.gen, c.setGen
}

// resync reconciles the snapshot's set of nodes with the cache's.
func (c *cache) resync(s *snapshot) {
	for name, it := range c.nodes {
		if it.info.node == nil {
			continue
		}
		if old := s.nodes[name]; old == nil || old.gen != it.info.gen {
			s.replace(it.info.clone())
		}
	}
	for name := range s.nodes {
		if it, ok := c.nodes[name]; !ok || it.info.node == nil {
			s.remove(name)
		}
	}
	s.rebuildList()
}

// infoOf is the podInfo counted under key (namespace/name), or nil.
func (c *cache) infoOf(key []byte) *podInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.pods[string(key)]; ok {
		return st.info
	}
	return nil
}
