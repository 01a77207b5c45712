package scheduler

import (
	"maps"
	"slices"
)

// nodeInfo is one node with the pods counted on it (bound, and assumed
// while their binding is under way). The cache mutates its own nodeInfos;
// a snapshot holds clones that nobody mutates.
type nodeInfo struct {
	*nodeStatic
	gen       int64       // cache generation of the last change
	requested resourceSet // sum of the requests of the counted pods
	nonZero   resourceSet // the same with scoring defaults
	ports     []hostPort  // host ports taken, one entry per pod port
	spread    map[string]int32
	pods      []*podInfo
	antiPods  int // counted pods with required anti-affinity
	// shared marks ports, pods and spread that a clone may share: they
	// are copied before they are changed in place. Appending needs no
	// copy: a clone's slices end at their length (clone).
	shared sharedParts
}

func newNodeInfo(static *nodeStatic) *nodeInfo {
	return &nodeInfo{nodeStatic: static, spread: map[string]int32{}}
}

// sharedParts says which of a nodeInfo's slices and maps a clone may share.
type sharedParts uint8

const (
	sharedPorts sharedParts = 1 << iota
	sharedPods
	sharedSpread
	sharedAll = sharedPorts | sharedPods | sharedSpread
)

// own makes the parts about to change in place n's own, copying those a
// clone may share.
func (n *nodeInfo) own(parts sharedParts) {
	parts &= n.shared
	if parts&sharedPorts != 0 {
		n.ports = slices.Clone(n.ports)
	}
	if parts&sharedPods != 0 {
		n.pods = slices.Clone(n.pods)
	}
	if parts&sharedSpread != 0 {
		n.spread = maps.Clone(n.spread)
	}
	n.shared &^= parts
}

// podCount is the number of pods counted on the node.
func (n *nodeInfo) podCount() int { return len(n.pods) }

// addPod counts p on the node.
func (n *nodeInfo) addPod(p *podInfo) {
	n.pods = append(n.pods, p)
	n.requested.add(p.req)
	n.nonZero.add(p.nonZero)
	n.ports = append(n.ports, p.ports...)
	if p.spreadKey != "" {
		n.own(sharedSpread)
		n.spread[p.spreadKey]++
	}
	if len(p.anti) > 0 {
		n.antiPods++
	}
}

// removePod stops counting the pod with p's key; false when it was not
// counted here.
func (n *nodeInfo) removePod(p *podInfo) bool {
	i := slices.IndexFunc(n.pods, func(q *podInfo) bool { return q.key == p.key })
	if i < 0 {
		return false
	}
	old := n.pods[i]
	n.own(partsOf(old))
	n.pods = slices.Delete(n.pods, i, i+1)
	n.requested.sub(old.req)
	n.nonZero.sub(old.nonZero)
	for _, hp := range old.ports {
		if j := slices.Index(n.ports, hp); j >= 0 {
			n.ports = slices.Delete(n.ports, j, j+1)
		}
	}
	if old.spreadKey != "" {
		if n.spread[old.spreadKey]--; n.spread[old.spreadKey] <= 0 {
			delete(n.spread, old.spreadKey)
		}
	}
	if len(old.anti) > 0 {
		n.antiPods--
	}
	return true
}

// partsOf is what counting p changes in place: the pods, and the ports
// and the spread counts if it has any.
func partsOf(p *podInfo) sharedParts {
	parts := sharedPods
	if len(p.ports) > 0 {
		parts |= sharedPorts
	}
	if p.spreadKey != "" {
		parts |= sharedSpread
	}
	return parts
}

// swapPod puts p in the place of the counted pod old (same key), which the
// caller has checked counts the same (sameAccount); false when old is not
// counted here.
func (n *nodeInfo) swapPod(old, p *podInfo) bool {
	i := slices.IndexFunc(n.pods, func(q *podInfo) bool { return q.key == old.key })
	if i < 0 {
		return false
	}
	n.own(sharedPods)
	n.pods[i] = p
	return true
}

// sameAccount reports whether two versions of a pod add the same to their
// node's sums (addPod): requests, host ports, group, anti-affinity.
func sameAccount(a, b *podInfo) bool {
	return a.req == b.req && a.nonZero == b.nonZero && slices.Equal(a.ports, b.ports) &&
		a.spreadKey == b.spreadKey && (len(a.anti) > 0) == (len(b.anti) > 0)
}

// clone is a copy for a snapshot (or a trial) that shares the slices and
// the map that addPod, removePod and swapPod change, and the static part
// and the podInfos (never mutated). Both then copy a shared part before
// changing it in place (own); the clone's slices end at their length, so
// the original's appends never show in it.
func (n *nodeInfo) clone() *nodeInfo {
	c := *n
	c.ports = slices.Clip(n.ports)
	c.pods = slices.Clip(n.pods)
	c.shared = sharedAll
	if n.shared != sharedAll { // a snapshot's nodes are not written to
		n.shared = sharedAll
	}
	return &c
}

// portFree reports whether none of ports conflicts with a taken one.
func (n *nodeInfo) portFree(ports []hostPort) bool {
	for _, want := range ports {
		for _, taken := range n.ports {
			if want.conflicts(taken) {
				return false
			}
		}
	}
	return true
}
