package nodelifecycle

import (
	corev1 "k8s.io/api/core/v1"
)

// conditionTaints are the NoSchedule taints upstream's node lifecycle
// controller keeps in step with the kubelet's pressure conditions
// (TaintNodesByCondition): set while the condition is True.
var conditionTaints = []struct {
	cond corev1.NodeConditionType
	key  string
}{
	{corev1.NodeMemoryPressure, corev1.TaintNodeMemoryPressure},
	{corev1.NodeDiskPressure, corev1.TaintNodeDiskPressure},
	{corev1.NodePIDPressure, corev1.TaintNodePIDPressure},
}

// reconcileConditionTaints is taints with the pressure taints matching
// the node's conditions; other taints are kept in their order.
func reconcileConditionTaints(taints []corev1.Taint, n *corev1.Node) ([]corev1.Taint, bool) {
	out := make([]corev1.Taint, 0, len(taints)+len(conditionTaints))
	changed := false
	for _, ct := range conditionTaints {
		want := conditionStatus(n, ct.cond) == corev1.ConditionTrue
		have := false
		for _, t := range taints {
			have = have || t.Key == ct.key && t.Effect == corev1.TaintEffectNoSchedule
		}
		changed = changed || want != have
	}
	for _, t := range taints {
		if !isConditionTaint(t) {
			out = append(out, t)
		}
	}
	for _, ct := range conditionTaints {
		if conditionStatus(n, ct.cond) == corev1.ConditionTrue {
			out = append(out, corev1.Taint{Key: ct.key, Effect: corev1.TaintEffectNoSchedule})
		}
	}
	if !changed {
		return taints, false
	}
	return out, true
}

func isConditionTaint(t corev1.Taint) bool {
	for _, ct := range conditionTaints {
		if t.Key == ct.key && t.Effect == corev1.TaintEffectNoSchedule {
			return true
		}
	}
	return false
}

func conditionStatus(n *corev1.Node, t corev1.NodeConditionType) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

// samePressure says whether two versions of a node report the same
// pressure conditions.
func samePressure(a, b *corev1.Node) bool {
	for _, ct := range conditionTaints {
		if conditionStatus(a, ct.cond) != conditionStatus(b, ct.cond) {
			return false
		}
	}
	return true
}
