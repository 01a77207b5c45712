package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// preferredAffinity honours preferredDuringSchedulingIgnoredDuringExecution
// node affinity: a node scores the sum of the weights of the preferred
// terms it matches, normalized so the best feasible node gets 100.
type preferredAffinity struct{}

func (preferredAffinity) score(c *cycle, n *nodeInfo) int64 {
	var sum int64
	for i := range c.pod.preferred {
		if c.pod.preferred[i].term.Matches(n.labels, n.name) {
			sum += c.pod.preferred[i].weight
		}
	}
	return sum
}

func (preferredAffinity) normalize(scores []int64) { normalizeToMax(scores) }

// weightedTerm is a compiled PreferredSchedulingTerm.
type weightedTerm struct {
	term   api.NodeTerm
	weight int64
}

// compilePreferred compiles the pod's preferred node affinity; terms of
// weight 0 count for nothing and are left out.
func compilePreferred(spec *corev1.PodSpec) []weightedTerm {
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil {
		return nil
	}
	pref := spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	out := make([]weightedTerm, 0, len(pref))
	for i := range pref {
		if pref[i].Weight == 0 {
			continue
		}
		out = append(out, weightedTerm{term: api.CompileNodeTerm(&pref[i].Preference), weight: int64(pref[i].Weight)})
	}
	return out
}
