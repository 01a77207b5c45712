package scheduler

// cycle is one scheduling attempt of one pod: the pod, the snapshot, and
// what is worked out once for the pod before the nodes are visited.
type cycle struct {
	pod         *podInfo
	snap        *snapshot
	arch        archRule
	forbidden   []domain          // domains existing pods' anti-affinity keeps the pod out of
	antiDomains []map[string]bool // per anti-affinity term of the pod: domains with a selected pod
	// affinityDomains are the domains holding a pod all of the pod's
	// affinity terms select; selfAffine says the pod is such a pod itself.
	affinityDomains map[domain]bool
	selfAffine      bool
	volumes         *podVolumes  // what its claims ask of a node (nil: no claims)
	domains         []domainMemo // spread counts per domain looked up this cycle
}

// algorithm picks a node for a pod on a snapshot: filter, then score. It
// does no I/O and keeps only buffers and two counters between calls, so
// one goroutine (the scheduling loop) owns it.
type algorithm struct {
	filters    []filter
	scorers    []weightedScorer
	norms      []normalizer // norms[i] is scorers[i]'s normalizer, or nil
	percentage int          // of nodes to find feasible; 0 adaptive
	extra      ImagePlatforms

	next int    // where the next search starts in the node list
	ties uint64 // rotates the choice among equally good nodes

	c        cycle
	active   []filter // this cycle's filters: those that can reject a node
	live     []int    // this cycle's scorers: those that tell nodes apart
	feasible []*nodeInfo
	rejected [][]string // the reasons of each node rejected this cycle
	reasons  map[string]int
	raw      []int64
	total    []int64
	best     []int
}

func newAlgorithm(percentage int, extra ImagePlatforms) *algorithm {
	a := &algorithm{filters: defaultFilters(), scorers: defaultScorers(), percentage: percentage,
		extra: extra, reasons: map[string]int{}}
	for _, ws := range a.scorers {
		nz, _ := ws.s.(normalizer)
		a.norms = append(a.norms, nz)
	}
	return a
}

// schedule returns the node for p, or a *FitError when none fits.
func (a *algorithm) schedule(p *podInfo, s *snapshot) (string, error) {
	return a.scheduleWithVolumes(p, s, nil)
}

// scheduleWithVolumes is schedule for a pod whose claims ask vols of a
// node (nil: it has none).
func (a *algorithm) scheduleWithVolumes(p *podInfo, s *snapshot, vols *podVolumes) (string, error) {
	all := len(s.list)
	if all == 0 {
		return "", newFitError(p.key, 0, nil)
	}
	c := &a.c
	c.pod, c.snap, c.volumes, c.domains = p, s, vols, c.domains[:0]
	c.arch.resolve(p, s, a.extra)
	c.prepareAffinity(s)
	c.prepareAntiAffinity(s)
	a.chooseChecks(c)
	feasible := a.findFeasible(c, s)
	switch len(feasible) {
	case 0:
		return "", newFitError(p.key, all, a.countReasons())
	case 1:
		return feasible[0].name, nil
	}
	return a.selectHost(c, feasible), nil
}

// chooseChecks picks the filters and scorers that matter for this cycle's
// pod. A filter that passes every node for it (host ports, for a pod that
// binds none) is left out, as is a scorer that gives every node the same
// score (spreading, for a pod of no group): it would add the same number
// to every node's total, which changes neither the best node nor the
// ties. The rest run in their usual order, so a rejected node still
// counts under the reasons of the first filter that fails.
func (a *algorithm) chooseChecks(c *cycle) {
	a.active = a.active[:0]
	for _, f := range a.filters {
		if o, ok := f.(optional); ok && !o.needed(c) {
			continue
		}
		a.active = append(a.active, f)
	}
	a.live = a.live[:0]
	for k, ws := range a.scorers {
		if u, ok := ws.s.(uniform); ok && u.uniform(c) {
			continue
		}
		a.live = append(a.live, k)
	}
}

// Feasible-node sampling, as kube-scheduler's percentageOfNodesToScore:
// in a large cluster the search stops once enough feasible nodes are
// found, and the next search starts where this one stopped.
const (
	minFeasibleNodes      = 100
	minFeasiblePercentage = 5
)

// numFeasibleToFind is how many feasible nodes are enough: all of them
// below 100 nodes; else percentage of the nodes (adaptive when 0: 50% less
// one point per 125 nodes, at least 5%), and never fewer than 100.
func numFeasibleToFind(percentage, all int) int {
	if all < minFeasibleNodes || percentage >= 100 {
		return all
	}
	if percentage <= 0 {
		percentage = max(50-all/125, minFeasiblePercentage)
	}
	return max(all*percentage/100, minFeasibleNodes)
}

// findFeasible runs the filters over the nodes from the rotating start
// until enough pass or all were tried, keeping the reasons of rejection
// (filters return shared, never changed slices) for countReasons.
func (a *algorithm) findFeasible(c *cycle, s *snapshot) []*nodeInfo {
	all := len(s.list)
	want := numFeasibleToFind(a.percentage, all)
	a.feasible, a.rejected = a.feasible[:0], a.rejected[:0]
	checked, i := 0, a.next%all
	for ; checked < all && len(a.feasible) < want; checked++ {
		n := s.list[i]
		if i++; i == all {
			i = 0
		}
		reasons := runFilters(a.active, c, n)
		if reasons == nil {
			a.feasible = append(a.feasible, n)
			continue
		}
		a.rejected = append(a.rejected, reasons)
	}
	a.next = i
	return a.feasible
}

// countReasons counts this cycle's rejections per reason. Only a pod that
// fits nowhere needs them, so a cycle that finds a node never counts.
func (a *algorithm) countReasons() map[string]int {
	clear(a.reasons)
	for _, reasons := range a.rejected {
		for _, r := range reasons {
			a.reasons[r]++
		}
	}
	return a.reasons
}

// selectHost scores the feasible nodes and returns the best; equally good
// nodes take turns (a rotating index, not chance, so runs repeat).
func (a *algorithm) selectHost(c *cycle, nodes []*nodeInfo) string {
	raw, total := grow(a.raw, len(nodes)), grow(a.total, len(nodes))
	clear(total)
	for _, k := range a.live {
		ws := a.scorers[k]
		ws.s.scoreNodes(c, nodes, raw)
		if a.norms[k] != nil {
			a.norms[k].normalize(raw)
		}
		for i := range raw {
			total[i] += ws.weight * raw[i]
		}
	}
	a.raw, a.total = raw, total
	a.best = a.best[:0]
	top := int64(-1)
	for i, t := range total {
		if t > top {
			top, a.best = t, a.best[:0]
		}
		if t == top {
			a.best = append(a.best, i)
		}
	}
	pick := a.best[a.ties%uint64(len(a.best))]
	a.ties++
	return nodes[pick].name
}

func grow(buf []int64, n int) []int64 {
	if cap(buf) < n {
		return make([]int64, n)
	}
	return buf[:n]
}
