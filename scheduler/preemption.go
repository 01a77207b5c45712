package scheduler

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Preemption, as kube-scheduler's DefaultPreemption: when a pod fits
// nowhere, look for a node where removing pods of lower priority makes it
// fit. On each node that passes the filters pods cannot change (ready,
// taints, selector, platform), every lower-priority pod is taken away; if
// the pod then fits, the candidates are given back one by one, most
// important first and the budget-protected before the rest, and those
// that still leave room stay. The node with the fewest budget violations,
// then the lowest top victim priority, then the fewest victims wins.
// Decided on the snapshot, with no I/O, like scheduling itself.

// nodeFilters are the checks that removing pods cannot change.
func nodeFilters() []filter {
	return []filter{nodeReady{}, taintToleration{}, nodeSelector{}, archFilter{}}
}

// podFilters are the checks that removing pods can satisfy.
func podFilters() []filter {
	return []filter{hostPorts{}, podCount{}, resourcesFit{}, podAffinity{}, antiAffinity{}}
}

// preemption is a node and the pods to remove from it.
type preemption struct {
	node       string
	victims    []*podInfo
	violations int   // victims a disruption budget protects
	top        int32 // highest victim priority
}

// Protected reports whether evicting pod would break a disruption budget.
type Protected func(pod *corev1.Pod) bool

// preempt finds where p could run by removing lower-priority pods; ok is
// false when nowhere. wait is true when some node would already fit once
// its lower-priority pods being deleted are gone: the pod then waits
// rather than evicting more. The cycle must be prepared for p (schedule
// did that).
func (a *algorithm) preempt(p *podInfo, s *snapshot, protected Protected) (best preemption, ok, wait bool) {
	c := &a.c
	for _, n := range s.list {
		if runFilters(nodeFilters(), c, n) != nil {
			continue
		}
		if a.fitsWithout(c, n, p, func(q *podInfo) bool { return q.pod.DeletionTimestamp != nil }) {
			return preemption{}, false, true
		}
		cand, found := a.victimsOn(c, n, p, protected)
		if found && (!ok || cand.better(best)) {
			best, ok = cand, true
		}
	}
	return best, ok, false
}

// fitsWithout reports whether p fits on n once the lower-priority pods
// gone matches (at least one) are removed.
func (a *algorithm) fitsWithout(c *cycle, n *nodeInfo, p *podInfo, gone func(*podInfo) bool) bool {
	trial, removed := n.clone(), 0
	for _, q := range n.pods {
		if q.priority < p.priority && gone(q) {
			trial.removePod(q)
			removed++
		}
	}
	return removed > 0 && runFilters(podFilters(), c, trial) == nil
}

// victimsOn works out the fewest, least important pods to remove from n.
func (a *algorithm) victimsOn(c *cycle, n *nodeInfo, p *podInfo, protected Protected) (preemption, bool) {
	trial := n.clone()
	var cands []*podInfo
	for _, q := range n.pods {
		if q.priority < p.priority && q.pod.DeletionTimestamp == nil && q.pod.Spec.NodeName != "" {
			cands = append(cands, q)
			trial.removePod(q)
		}
	}
	if len(cands) == 0 || runFilters(podFilters(), c, trial) != nil {
		return preemption{}, false
	}
	isProtected := func(q *podInfo) bool { return protected != nil && protected(q.pod) }
	reprieveOrder(cands, isProtected)
	out := preemption{node: n.name, top: -1 << 31}
	for _, q := range cands {
		trial.addPod(q)
		if runFilters(podFilters(), c, trial) == nil {
			continue // reprieved
		}
		trial.removePod(q)
		out.victims = append(out.victims, q)
		out.top = max(out.top, q.priority)
		if isProtected(q) {
			out.violations++
		}
	}
	return out, true
}

// reprieveOrder sorts the candidates to give back first: the protected
// ones, then the most important.
func reprieveOrder(cands []*podInfo, isProtected func(*podInfo) bool) {
	slices.SortStableFunc(cands, func(x, y *podInfo) int {
		if px, py := isProtected(x), isProtected(y); px != py {
			if px {
				return -1
			}
			return 1
		}
		return cmp.Compare(y.priority, x.priority)
	})
}

// better orders candidate nodes as kube-scheduler's pickOneNodeForPreemption.
func (x preemption) better(y preemption) bool {
	switch {
	case x.violations != y.violations:
		return x.violations < y.violations
	case x.top != y.top:
		return x.top < y.top
	}
	return len(x.victims) < len(y.victims)
}
