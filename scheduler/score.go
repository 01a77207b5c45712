package scheduler

// scorer rates a node that passed every filter, 0 (worst) to 100 (best).
// Like filters, scorers read only the cycle and the node.
type scorer interface {
	score(c *cycle, n *nodeInfo) int64
	// scoreNodes sets out[i] to score(c, nodes[i]): one call per scorer
	// and cycle instead of one per node.
	scoreNodes(c *cycle, nodes []*nodeInfo, out []int64)
}

// uniform is implemented by scorers that give every node the same score
// for some pods (spreading, for a pod of no group): uniform reports
// whether the cycle's pod is one of them, after normalization.
type uniform interface {
	uniform(c *cycle) bool
}

// normalizer is implemented by scorers whose raw score means something
// only relative to the other feasible nodes (a count of pods, a sum of
// weights); normalize turns the raw scores of all feasible nodes into 0..100
// in place.
type normalizer interface {
	normalize(scores []int64)
}

// weightedScorer is one scorer and its weight in the total.
type weightedScorer struct {
	name   string
	s      scorer
	weight int64
}

// maxScore is the best score a scorer gives.
const maxScore = 100

// defaultScorers is the scoring chain, wired once. The weights follow
// kube-scheduler's defaults: resources 1 each, node affinity and spreading
// 2, image locality 1.
func defaultScorers() []weightedScorer {
	return []weightedScorer{
		{name: "LeastAllocated", s: leastAllocated{}, weight: 1},
		{name: "BalancedAllocation", s: balancedAllocation{}, weight: 1},
		{name: "SpreadNodes", s: spreadNodes{}, weight: 2},
		{name: "SpreadTopology", s: spreadTopology{}, weight: 2},
		{name: "ImageLocality", s: imageLocality{}, weight: 1},
		{name: "PreferredNodeAffinity", s: preferredAffinity{}, weight: 2},
	}
}

// normalizeReverse maps counts to scores where fewer is better: the node
// with the most gets 0, a node with none gets 100. All zero: all 100.
func normalizeReverse(scores []int64) {
	top := maxOf(scores)
	for i, s := range scores {
		if top == 0 {
			scores[i] = maxScore
		} else {
			scores[i] = maxScore * (top - s) / top
		}
	}
}

// normalizeToMax maps sums to scores where more is better: the node with
// the most gets 100. All zero: all 0.
func normalizeToMax(scores []int64) {
	top := maxOf(scores)
	if top == 0 {
		return
	}
	for i, s := range scores {
		scores[i] = maxScore * s / top
	}
}

func maxOf(scores []int64) int64 {
	var top int64
	for _, s := range scores {
		top = max(top, s)
	}
	return top
}

func (s leastAllocated) scoreNodes(c *cycle, nodes []*nodeInfo, out []int64) {
	for i, n := range nodes {
		out[i] = s.score(c, n)
	}
}

func (s balancedAllocation) scoreNodes(c *cycle, nodes []*nodeInfo, out []int64) {
	for i, n := range nodes {
		out[i] = s.score(c, n)
	}
}

func (s spreadNodes) scoreNodes(c *cycle, nodes []*nodeInfo, out []int64) {
	for i, n := range nodes {
		out[i] = s.score(c, n)
	}
}

func (s spreadTopology) scoreNodes(c *cycle, nodes []*nodeInfo, out []int64) {
	for i, n := range nodes {
		out[i] = s.score(c, n)
	}
}

func (s imageLocality) scoreNodes(c *cycle, nodes []*nodeInfo, out []int64) {
	for i, n := range nodes {
		out[i] = s.score(c, n)
	}
}

func (s preferredAffinity) scoreNodes(c *cycle, nodes []*nodeInfo, out []int64) {
	for i, n := range nodes {
		out[i] = s.score(c, n)
	}
}

// A pod of no group scores 0 everywhere, normalized to 100 everywhere.
func (spreadNodes) uniform(c *cycle) bool    { return c.pod.spreadKey == "" }
func (spreadTopology) uniform(c *cycle) bool { return c.pod.spreadKey == "" }

// Without preferred terms every node scores 0.
func (preferredAffinity) uniform(c *cycle) bool { return len(c.pod.preferred) == 0 }

// A node without any of the pod's images scores 0 (imageScore(0) is 0), so
// when no node has one, every node does.
func (imageLocality) uniform(c *cycle) bool {
	for _, img := range c.pod.images {
		if c.snap.imageNodes[img] > 0 {
			return false
		}
	}
	return true
}
