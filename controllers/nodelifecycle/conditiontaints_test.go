package nodelifecycle

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A node reporting DiskPressure gets node.kubernetes.io/disk-pressure
// NoSchedule, as upstream's TaintNodesByCondition, and loses it when the
// pressure ends; the operator's taints stay.
func TestDiskPressureTaint(t *testing.T) {
	h := start(t)
	h.createNode("pi-1")
	n := h.node("pi-1")
	n.Spec.Taints = []corev1.Taint{{Key: "example.com/dedicated", Value: "edge", Effect: corev1.TaintEffectNoSchedule}}
	if _, err := h.Client.Update(h.Ctx, n); err != nil {
		t.Fatalf("taint node: %v", err)
	}
	h.setConditions("pi-1", corev1.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue})
	h.waitTaints("pi-1", "example.com/dedicated", corev1.TaintNodeDiskPressure)
	h.setConditions("pi-1", corev1.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse})
	h.waitTaints("pi-1", "example.com/dedicated")
}
