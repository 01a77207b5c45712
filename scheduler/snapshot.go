package scheduler

import (
	"cmp"
	"slices"
)

// snapshot is the scheduler's consistent view of the cluster for one
// scheduling cycle. The cache brings it up to date between cycles by
// replacing only the nodes that changed (cache.updateSnapshot); during a
// cycle nobody changes it. Besides the nodes it keeps cluster-wide indexes
// that the filters and scores would otherwise compute by walking every
// node, updated from the same node changes.
type snapshot struct {
	gen, setGen int64 // the cache generations it reflects
	topoLabels  []string
	nodes       map[string]*nodeInfo
	list        []*nodeInfo    // scheduling order: zones interleaved
	index       map[string]int // node name -> position in list
	// topo counts pods per topology domain and spread key.
	topo map[topoKey]int32
	// imageNodes counts the nodes that have each image.
	imageNodes map[string]int32
	// platforms is the union of the nodes' image-platforms annotations.
	platforms map[string]*platformEntry
	// antiNodes are the nodes with pods that have required anti-affinity.
	antiNodes map[string]*nodeInfo
}

// topoKey names one topology domain (value of topology label number
// label) and one group of pods.
type topoKey struct {
	label     int
	value     string
	spreadKey string
}

// platformEntry counts, per platform, the nodes that report an image runs
// on it; list holds the platforms with a count above zero.
type platformEntry struct {
	counts map[platform]int32
	list   []platform
}

func newSnapshot(topologyLabels []string) *snapshot {
	return &snapshot{topoLabels: topologyLabels, nodes: map[string]*nodeInfo{}, index: map[string]int{},
		topo: map[topoKey]int32{}, imageNodes: map[string]int32{}, platforms: map[string]*platformEntry{},
		antiNodes: map[string]*nodeInfo{}}
}

// replace puts a new clone of a node in the snapshot. A clone of the same
// node account (the usual case: a pod came, went or changed) has the
// topology counts changed only by what its group counts changed.
func (s *snapshot) replace(n *nodeInfo) {
	switch old := s.nodes[n.name]; {
	case old == nil:
		s.accountStatic(n.nodeStatic, 1)
		s.accountPods(n, 1)
	case old.nodeStatic != n.nodeStatic:
		s.accountPods(old, -1)
		s.accountStatic(old.nodeStatic, -1)
		s.accountStatic(n.nodeStatic, 1)
		s.accountPods(n, 1)
	default:
		s.accountSpreadChange(old, n)
	}
	s.nodes[n.name] = n
	if i, ok := s.index[n.name]; ok {
		s.list[i] = n
	}
	if n.antiPods > 0 {
		s.antiNodes[n.name] = n
	} else {
		delete(s.antiNodes, n.name)
	}
}

// remove drops a node; the caller rebuilds the list afterwards.
func (s *snapshot) remove(name string) {
	if old := s.nodes[name]; old != nil {
		s.accountPods(old, -1)
		s.accountStatic(old.nodeStatic, -1)
		delete(s.nodes, name)
		delete(s.antiNodes, name)
	}
}

// accountPods adds (sign 1) or takes away (-1) the node's pods from the
// topology counts.
func (s *snapshot) accountPods(n *nodeInfo, sign int32) {
	for key, count := range n.spread {
		s.addTopo(n.nodeStatic, key, sign*count)
	}
}

// accountSpreadChange moves the topology counts from old's pods to n's,
// two accounts of one node with the same static part.
func (s *snapshot) accountSpreadChange(old, n *nodeInfo) {
	for key, count := range n.spread {
		if d := count - old.spread[key]; d != 0 {
			s.addTopo(n.nodeStatic, key, d)
		}
	}
	for key, count := range old.spread {
		if _, ok := n.spread[key]; !ok {
			s.addTopo(n.nodeStatic, key, -count)
		}
	}
}

// addTopo adds delta pods of group key to each of the node's domains.
func (s *snapshot) addTopo(st *nodeStatic, key string, delta int32) {
	for i, v := range st.topo {
		if v == "" {
			continue
		}
		k := topoKey{label: i, value: v, spreadKey: key}
		if s.topo[k] += delta; s.topo[k] == 0 {
			delete(s.topo, k)
		}
	}
}

// accountStatic adds or takes away the node's images and image platforms.
func (s *snapshot) accountStatic(st *nodeStatic, sign int32) {
	for img := range st.images {
		if s.imageNodes[img] += sign; s.imageNodes[img] == 0 {
			delete(s.imageNodes, img)
		}
	}
	for img, list := range st.imagePlatforms {
		e := s.platforms[img]
		if e == nil {
			e = &platformEntry{counts: map[platform]int32{}}
			s.platforms[img] = e
		}
		for _, p := range list {
			if e.counts[p] += sign; e.counts[p] == 0 {
				delete(e.counts, p)
			}
		}
		e.list = e.list[:0]
		for p := range e.counts {
			e.list = append(e.list, p)
		}
		slices.SortFunc(e.list, func(a, b platform) int { return cmp.Compare(a.String(), b.String()) })
		if len(e.list) == 0 {
			delete(s.platforms, img)
		}
	}
}

// rebuildList orders the nodes for scheduling: grouped by the first
// topology label (nodes without it form one group), by name within a
// group, and the groups interleaved, so that a window of consecutive nodes
// (as sampling uses) spans every zone.
func (s *snapshot) rebuildList() {
	groups := map[string][]*nodeInfo{}
	for _, n := range s.nodes {
		zone := ""
		if len(n.topo) > 0 {
			zone = n.topo[0]
		}
		groups[zone] = append(groups[zone], n)
	}
	zones := make([]string, 0, len(groups))
	for z, g := range groups {
		zones = append(zones, z)
		slices.SortFunc(g, func(a, b *nodeInfo) int { return cmp.Compare(a.name, b.name) })
	}
	slices.Sort(zones)
	s.list = s.list[:0]
	clear(s.index)
	for i := 0; len(s.list) < len(s.nodes); i++ {
		for _, z := range zones {
			if g := groups[z]; i < len(g) {
				s.index[g[i].name] = len(s.list)
				s.list = append(s.list, g[i])
			}
		}
	}
}

// imagePlatforms answers from the nodes' annotations.
func (s *snapshot) imagePlatforms(img string) ([]platform, bool) {
	e := s.platforms[img]
	if e == nil || len(e.list) == 0 {
		return nil, false
	}
	return e.list, true
}
