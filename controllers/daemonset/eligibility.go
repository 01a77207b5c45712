package daemonset

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// Taint keys a DaemonSet's pods tolerate without being told to, as in
// Kubernetes: a daemon pod stays on a node that is not ready, unreachable
// or under pressure, and lands on a cordoned one.
const (
	taintNotReady           = "node.kubernetes.io/not-ready"
	taintUnreachable        = "node.kubernetes.io/unreachable"
	taintDiskPressure       = "node.kubernetes.io/disk-pressure"
	taintMemoryPressure     = "node.kubernetes.io/memory-pressure"
	taintPIDPressure        = "node.kubernetes.io/pid-pressure"
	taintUnschedulable      = "node.kubernetes.io/unschedulable"
	taintNetworkUnavailable = "node.kubernetes.io/network-unavailable"
)

// daemonTolerations are the tolerations every daemon pod gets on top of
// its template's; hostNetwork pods also tolerate an unready network.
func daemonTolerations(hostNetwork bool) []corev1.Toleration {
	exists := func(key string, effect corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
	}
	out := []corev1.Toleration{
		exists(taintNotReady, corev1.TaintEffectNoExecute),
		exists(taintUnreachable, corev1.TaintEffectNoExecute),
		exists(taintDiskPressure, corev1.TaintEffectNoSchedule),
		exists(taintMemoryPressure, corev1.TaintEffectNoSchedule),
		exists(taintPIDPressure, corev1.TaintEffectNoSchedule),
		exists(taintUnschedulable, corev1.TaintEffectNoSchedule),
	}
	if hostNetwork {
		out = append(out, exists(taintNetworkUnavailable, corev1.TaintEffectNoSchedule))
	}
	return out
}

// withDaemonTolerations returns the template's tolerations plus each
// automatic one not already there (same key and effect).
func withDaemonTolerations(spec *corev1.PodSpec) []corev1.Toleration {
	out := slices.Clone(spec.Tolerations)
	for _, auto := range daemonTolerations(spec.HostNetwork) {
		if !slices.ContainsFunc(out, func(t corev1.Toleration) bool {
			return t.Key == auto.Key && t.Effect == auto.Effect
		}) {
			out = append(out, auto)
		}
	}
	return out
}

// placement says whether a daemon pod belongs on a node: shouldRun means
// a pod should be created there; shouldContinue means a pod already there
// may stay (a NoSchedule taint added later does not evict it, NoExecute
// does).
type placement struct {
	shouldRun, shouldContinue bool
}

// nodePlacement decides a DaemonSet pod template's placement on node.
func nodePlacement(node *corev1.Node, spec *corev1.PodSpec) placement {
	if spec.NodeName != "" && spec.NodeName != node.Name {
		return placement{}
	}
	if !matchesNode(spec, node) {
		return placement{}
	}
	tolerations := withDaemonTolerations(spec)
	p := placement{shouldRun: true, shouldContinue: true}
	for i := range node.Spec.Taints {
		taint := &node.Spec.Taints[i]
		if tolerates(tolerations, taint) {
			continue
		}
		switch taint.Effect {
		case corev1.TaintEffectNoExecute:
			return placement{}
		case corev1.TaintEffectNoSchedule:
			p.shouldRun = false
		}
	}
	return p
}

func tolerates(tolerations []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// matchesNode reports whether node satisfies spec.nodeSelector and the
// required node affinity (its terms ORed, each term's expressions ANDed).
func matchesNode(spec *corev1.PodSpec, node *corev1.Node) bool {
	for k, v := range spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if termMatches(&term, node) {
			return true
		}
	}
	return false
}

// termMatches evaluates one term; an empty term matches no node.
func termMatches(t *corev1.NodeSelectorTerm, node *corev1.Node) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	for i := range t.MatchExpressions {
		v, ok := node.Labels[t.MatchExpressions[i].Key]
		if !requirementHolds(&t.MatchExpressions[i], v, ok) {
			return false
		}
	}
	for i := range t.MatchFields {
		f := &t.MatchFields[i]
		if f.Key != "metadata.name" || (f.Operator != corev1.NodeSelectorOpIn && f.Operator != corev1.NodeSelectorOpNotIn) {
			return false
		}
		if !requirementHolds(f, node.Name, true) {
			return false
		}
	}
	return true
}

// requirementHolds evaluates one requirement against a label value
// (present says whether the label exists). Malformed ones never hold.
func requirementHolds(r *corev1.NodeSelectorRequirement, v string, present bool) bool {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return present && slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !present || !slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return present && len(r.Values) == 0
	case corev1.NodeSelectorOpDoesNotExist:
		return !present && len(r.Values) == 0
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !present || len(r.Values) != 1 {
			return false
		}
		bound, err1 := strconv.ParseInt(r.Values[0], 10, 64)
		n, err2 := strconv.ParseInt(v, 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return (r.Operator == corev1.NodeSelectorOpGt && n > bound) || (r.Operator == corev1.NodeSelectorOpLt && n < bound)
	}
	return false
}
