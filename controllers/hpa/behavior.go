package hpa

import (
	"math"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// timedReplicas is a recommendation or a scale event at a time.
type timedReplicas struct {
	at       time.Time
	replicas int32
}

// history is what the controller remembers of one HPA between syncs, in
// memory as upstream's controller does: its recent recommendations (for
// the stabilization windows) and scale events (for the policies).
type history struct {
	recommendations []timedReplicas
	events          []scaleEvent
}

type scaleEvent struct {
	at     time.Time
	change int32 // > 0 added, < 0 removed
}

// defaultBehavior is upstream's autoscaling/v2 default for an HPA without
// one: scale up at once by up to 4 pods or 100 % per 15 s, scale down by
// up to 100 % per 15 s after a 300 s stabilization window.
func defaultBehavior() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	up, down, maxPolicy := int32(0), int32(300), autoscalingv2.MaxChangePolicySelect
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &up, SelectPolicy: &maxPolicy,
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}},
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &down, SelectPolicy: &maxPolicy,
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}},
	}
}

// stabilize records desired and returns the count the stabilization
// windows allow: no higher than the lowest recommendation of the scale-up
// window, no lower than the highest of the scale-down window.
func (h *history) stabilize(now time.Time, current, desired int32, b *autoscalingv2.HorizontalPodAutoscalerBehavior) int32 {
	upCut := now.Add(-window(b.ScaleUp))
	downCut := now.Add(-window(b.ScaleDown))
	up, down := desired, desired
	keep := h.recommendations[:0]
	for _, r := range h.recommendations {
		if r.at.After(upCut) {
			up = min(up, r.replicas)
		}
		if r.at.After(downCut) {
			down = max(down, r.replicas)
		}
		if r.at.After(upCut) || r.at.After(downCut) {
			keep = append(keep, r)
		}
	}
	h.recommendations = append(keep, timedReplicas{at: now, replicas: desired})
	out := max(current, up)
	return min(out, down)
}

func window(r *autoscalingv2.HPAScalingRules) time.Duration {
	if r == nil || r.StabilizationWindowSeconds == nil {
		return 0
	}
	return time.Duration(*r.StabilizationWindowSeconds) * time.Second
}

// limit applies the scaling policies to a change from current to desired
// and reports whether they held it back.
func (h *history) limit(now time.Time, current, desired int32, b *autoscalingv2.HorizontalPodAutoscalerBehavior) (int32, bool) {
	switch {
	case desired > current:
		l := h.upLimit(now, current, b.ScaleUp)
		return min(desired, l), desired > l
	case desired < current:
		l := h.downLimit(now, current, b.ScaleDown)
		return max(desired, l), desired < l
	}
	return desired, false
}

// changedWithin sums the scale events of the last period seconds in the
// given direction.
func (h *history) changedWithin(now time.Time, period int32, up bool) int32 {
	cut := now.Add(-time.Duration(period) * time.Second)
	var sum int32
	for _, e := range h.events {
		if e.at.After(cut) && (e.change > 0) == up {
			sum += e.change
		}
	}
	return sum
}

func (h *history) upLimit(now time.Time, current int32, r *autoscalingv2.HPAScalingRules) int32 {
	if r == nil || selectPolicy(r) == autoscalingv2.DisabledPolicySelect {
		return current
	}
	pickMin := selectPolicy(r) == autoscalingv2.MinChangePolicySelect
	best := int32(math.MinInt32)
	if pickMin {
		best = math.MaxInt32
	}
	for _, p := range r.Policies {
		start := current - h.changedWithin(now, p.PeriodSeconds, true)
		l := start + p.Value
		if p.Type == autoscalingv2.PercentScalingPolicy {
			l = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		}
		best = pick(pickMin, best, l)
	}
	return max(best, current)
}

func (h *history) downLimit(now time.Time, current int32, r *autoscalingv2.HPAScalingRules) int32 {
	if r == nil || selectPolicy(r) == autoscalingv2.DisabledPolicySelect {
		return current
	}
	pickMin := selectPolicy(r) != autoscalingv2.MinChangePolicySelect // the most change is the lowest limit
	best := int32(math.MaxInt32)
	if !pickMin {
		best = math.MinInt32
	}
	for _, p := range r.Policies {
		start := current - h.changedWithin(now, p.PeriodSeconds, false) // removed counts negative
		l := start - p.Value
		if p.Type == autoscalingv2.PercentScalingPolicy {
			l = int32(math.Floor(float64(start) * (1 - float64(p.Value)/100)))
		}
		best = pick(pickMin, best, l)
	}
	return min(best, current)
}

func pick(lowest bool, a, b int32) int32 {
	if lowest {
		return min(a, b)
	}
	return max(a, b)
}

func selectPolicy(r *autoscalingv2.HPAScalingRules) autoscalingv2.ScalingPolicySelect {
	if r.SelectPolicy == nil {
		return autoscalingv2.MaxChangePolicySelect
	}
	return *r.SelectPolicy
}

// record notes a scale from old to replicas, forgetting events older than
// the longest policy period (30 minutes at most).
func (h *history) record(now time.Time, old, replicas int32) {
	keep := h.events[:0]
	for _, e := range h.events {
		if now.Sub(e.at) < 30*time.Minute {
			keep = append(keep, e)
		}
	}
	h.events = append(keep, scaleEvent{at: now, change: replicas - old})
}
