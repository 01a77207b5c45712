package scheduler

// scorer rates a node that passed every filter, 0 (worst) to 100 (best).
// Like filters, scorers read only the cycle and the node.
type scorer interface {
	score(c *cycle, n *nodeInfo) int64
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
