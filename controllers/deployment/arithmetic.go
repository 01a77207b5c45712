package deployment

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// The rolling-update arithmetic, kept free of API objects so that property
// tests can drive it directly. The controller calls exactly these.

// Fenceposts resolves maxSurge and maxUnavailable against replicas as
// Kubernetes does: a surge percentage rounds up, an unavailable percentage
// rounds down, and when both come to zero one pod may be unavailable (else
// a rollout could never start). Unavailable never exceeds replicas.
func Fenceposts(maxSurge, maxUnavailable *intstr.IntOrString, replicas int32) (surge, unavailable int32, err error) {
	s, err := scaled(maxSurge, replicas, true)
	if err != nil {
		return 0, 0, fmt.Errorf("maxSurge: %w", err)
	}
	u, err := scaled(maxUnavailable, replicas, false)
	if err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return s, min(u, max(replicas, 0)), nil
}

func scaled(v *intstr.IntOrString, total int32, roundUp bool) (int32, error) {
	if v == nil {
		return 0, nil
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, int(total), roundUp)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("must not be negative, got %d", n)
	}
	return int32(n), nil
}

// Counts are one ReplicaSet's desired (spec) and available pod counts.
type Counts struct {
	Replicas  int32
	Available int32
}

// NewRSReplicas is how far the new ReplicaSet may be scaled: to replicas,
// but never so far that the pods of every ReplicaSet together (total, by
// spec) exceed replicas+surge. Above replicas it is scaled down to it.
func NewRSReplicas(replicas, surge, total, current int32) int32 {
	if current >= replicas {
		return replicas
	}
	room := replicas + surge - total
	if room <= 0 {
		return current
	}
	return current + min(room, replicas-current)
}

// PlanRolling is one step of a rolling update, as the controller takes it:
// first the new ReplicaSet is scaled toward replicas within the surge; only
// when it cannot move are old ReplicaSets (active ones, oldest first)
// scaled down, unavailable pods first, then available ones as far as keeps
// replicas-unavailable pods available. It returns the new targets.
func PlanRolling(replicas, surge, unavailable int32, newRS Counts, old []Counts) (newTarget int32, oldTargets []int32) {
	total := newRS.Replicas
	oldTargets = make([]int32, len(old))
	for i, o := range old {
		total += o.Replicas
		oldTargets[i] = o.Replicas
	}
	newTarget = NewRSReplicas(replicas, surge, total, newRS.Replicas)
	if newTarget != newRS.Replicas {
		return newTarget, oldTargets
	}
	return newTarget, ScaleDownOld(replicas, unavailable, newRS, old)
}

// ScaleDownOld returns the sizes old ReplicaSets (oldest first) may shrink
// to. Budget for removing unavailable old pods: every pod above
// replicas-unavailable that is not an unavailable new pod. Then available
// old pods go while more than replicas-unavailable pods are available.
func ScaleDownOld(replicas, unavailable int32, newRS Counts, old []Counts) []int32 {
	out := make([]int32, len(old))
	total, avail := newRS.Replicas, min(newRS.Available, newRS.Replicas)
	for i, o := range old {
		out[i] = o.Replicas
		total += o.Replicas
		avail += min(o.Available, o.Replicas)
	}
	minAvailable := replicas - unavailable
	budget := total - minAvailable - max(newRS.Replicas-newRS.Available, 0)
	if budget <= 0 {
		return out
	}
	for i, o := range old {
		if budget <= 0 {
			break
		}
		cut := min(budget, max(out[i]-o.Available, 0))
		out[i] -= cut
		budget -= cut
	}
	spare := avail - minAvailable
	for i := range old {
		if spare <= 0 {
			break
		}
		cut := min(out[i], spare)
		out[i] -= cut
		spare -= cut
	}
	return out
}

// Share is an active ReplicaSet as proportional scaling sees it.
type Share struct {
	Replicas int32
	// MaxReplicas is the max-replicas annotation the ReplicaSet was last
	// sized under (replicas+surge of the Deployment then); 0 if unknown.
	MaxReplicas int32
}

// Proportional spreads a change of a Deployment's size over its active
// ReplicaSets in proportion to their sizes, as Kubernetes does when a
// Deployment is scaled mid-rollout. allowed is the new replicas+surge (0
// when replicas is 0); fallback stands in for a missing MaxReplicas (the
// Deployment's status.replicas). rss must be ordered largest first (newer
// first among equals when growing, older first when shrinking): the first
// takes the rounding leftover. The sizes returned sum to allowed.
func Proportional(allowed, fallback int32, rss []Share) []int32 {
	out := make([]int32, len(rss))
	var sum int32
	for i, rs := range rss {
		out[i] = rs.Replicas
		sum += rs.Replicas
	}
	toAdd := allowed - sum
	if toAdd == 0 || len(rss) == 0 {
		return out
	}
	var added int32
	for i, rs := range rss {
		p := proportion(rs, allowed, fallback, toAdd, added)
		out[i] += p
		added += p
	}
	// The rounding leftover goes to the largest; when shrinking, what it
	// cannot give up is taken from the next ones, so the total stays bounded.
	left := toAdd - added
	for i := 0; i < len(out) && left != 0; i++ {
		take := max(left, -out[i])
		out[i] += take
		left -= take
	}
	return out
}

func proportion(rs Share, allowed, fallback, toAdd, added int32) int32 {
	if rs.Replicas == 0 || toAdd == added {
		return 0
	}
	var fraction int32
	if allowed == 0 {
		fraction = -rs.Replicas
	} else {
		base := rs.MaxReplicas
		if base <= 0 {
			base = fallback
		}
		if base <= 0 {
			return 0
		}
		size := float64(rs.Replicas) * float64(allowed) / float64(base)
		fraction = int32(math.Round(size)) - rs.Replicas
	}
	if toAdd > 0 {
		return max(min(fraction, toAdd-added), 0)
	}
	return min(max(fraction, toAdd-added), 0)
}
