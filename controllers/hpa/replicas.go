package hpa

import (
	"fmt"
	"math"
)

// Tolerance is upstream's default: a usage ratio within 10 % of the target
// changes nothing.
const Tolerance = 0.1

// podSample is one pod of the scale target as the calculation sees it.
type podSample struct {
	// usage is the pod's usage of the resource (millicores or bytes);
	// hasUsage is false when no metrics came for it.
	usage    int64
	hasUsage bool
	// request is the sum of its containers' requests of the resource
	// (needed for Utilization targets).
	request int64
	// ready: a not-ready pod is left out of a CPU scale-up, as upstream's
	// controller leaves out pods still starting.
	ready bool
}

// target is one metric's goal: a utilization (percent of the requests) or
// an average value per pod.
type target struct {
	utilization   int32 // > 0 for a Utilization target
	averageValue  int64 // > 0 for an AverageValue target
	ignoreUnready bool  // CPU: not-ready pods do not count on a scale-up
}

// recommendation is what one metric asks for and what it measured.
type recommendation struct {
	replicas     int32
	utilization  int32 // current average utilization (Utilization targets)
	averageValue int64 // current average usage per pod with metrics
}

// replicasFor computes the replica count one metric asks for, following
// upstream's rules: pods without metrics count, on a scale-down, as using
// their target, and on a scale-up as using nothing; not-ready pods count
// as using nothing on a CPU scale-up; a ratio within Tolerance of 1, or
// one these assumptions turn around, keeps the current count.
func replicasFor(current int32, pods []podSample, t target) (recommendation, error) {
	var used, requested int64
	var measured, missing, unready int
	for _, p := range pods {
		switch {
		case !p.hasUsage:
			missing++
			continue
		case !p.ready && t.ignoreUnready:
			unready++
			continue
		}
		if t.utilization > 0 && p.request <= 0 {
			return recommendation{}, fmt.Errorf("missing request for the resource on a pod")
		}
		used += p.usage
		requested += p.request
		measured++
	}
	if measured == 0 {
		return recommendation{}, fmt.Errorf("no pod of the %d has metrics", len(pods))
	}
	ratio, rec := usageRatio(used, requested, int64(measured), t)
	if missing == 0 && unready == 0 {
		if math.Abs(1-ratio) <= Tolerance {
			rec.replicas = current
			return rec, nil
		}
		rec.replicas = int32(math.Ceil(ratio * float64(measured)))
		return rec, nil
	}
	return rebalance(current, pods, t, ratio, rec)
}

// usageRatio is the measured usage over the target (1 = on target).
func usageRatio(used, requested, measured int64, t target) (float64, recommendation) {
	if t.utilization > 0 {
		util := int32(used * 100 / requested)
		return float64(util) / float64(t.utilization), recommendation{utilization: util, averageValue: used / measured}
	}
	avg := used / measured
	return float64(used) / float64(t.averageValue*measured), recommendation{averageValue: avg}
}

// rebalance fills in the pods without metrics (and, on a CPU scale-up, the
// not-ready ones) as upstream does and computes the ratio again.
func rebalance(current int32, pods []podSample, t target, ratio float64, rec recommendation) (recommendation, error) {
	var used, requested, counted int64
	for _, p := range pods {
		switch {
		case !p.hasUsage && ratio < 1: // scale-down: assume it uses its target
			used += fullUse(p, t)
		case !p.hasUsage, !p.ready && t.ignoreUnready && ratio > 1: // scale-up: assume it uses nothing
		case !p.ready && t.ignoreUnready: // a not-ready pod with metrics on a scale-down: left out
			continue
		default:
			used += p.usage
		}
		requested += p.request
		counted++
	}
	newRatio, _ := usageRatio(used, max(requested, 1), counted, t)
	if math.Abs(1-newRatio) <= Tolerance || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1) {
		rec.replicas = current
		return rec, nil
	}
	rec.replicas = int32(math.Ceil(newRatio * float64(counted)))
	return rec, nil
}

// fullUse is what a pod using exactly its target uses.
func fullUse(p podSample, t target) int64 {
	if t.utilization > 0 {
		return p.request * int64(t.utilization) / 100
	}
	return t.averageValue
}
