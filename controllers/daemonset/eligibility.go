package daemonset

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
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
	if !api.CompileNodeMatcher(spec).Matches(node.Labels, node.Name) {
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
