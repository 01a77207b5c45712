package nodelifecycle

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

func TestUnreachableNodeEvictsControllerPodsOnly(t *testing.T) {
	h := start(t)
	h.createNode("pi-1")
	h.createNode("pi-2")
	quick := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(1)}
	h.createPod("rs-quick", "pi-1", "ReplicaSet", quick)
	h.createPod("rs-default", "pi-1", "ReplicaSet") // 300 s by default
	h.createPod("ds", "pi-1", "DaemonSet", quick)
	h.createPod("bare", "pi-1", "", quick)
	h.createPod("elsewhere", "pi-2", "ReplicaSet", quick)

	h.setReady("pi-1", corev1.ConditionUnknown)
	taint := h.waitTaint("pi-1", corev1.TaintNodeUnreachable)
	if taint.TimeAdded == nil {
		t.Fatal("got an unreachable taint without timeAdded, want one")
	}
	h.waitEvicted("rs-quick")
	h.Eventually(waitFor, func() error {
		if !h.evictionEvent("rs-quick") {
			return fmt.Errorf("no TaintManagerEviction event for rs-quick")
		}
		return nil
	})
	// Unreachable pods that stay keep the status their node last reported:
	// nothing but the agent writes it.
	for _, name := range []string{"rs-default", "ds", "bare"} {
		p, err := h.pod(name)
		if err != nil {
			t.Fatalf("pod %s: %v (want it kept)", name, err)
		}
		if p.Status.Reason != "" || hasFalseReady(p) {
			t.Fatalf("pod %s status was changed by the controller: %+v", name, p.Status)
		}
	}
	time.Sleep(1500 * time.Millisecond) // well past the 1 s toleration
	for _, name := range []string{"rs-default", "ds", "bare", "elsewhere"} {
		if _, err := h.pod(name); err != nil {
			t.Fatalf("pod %s: got %v, want it kept", name, err)
		}
	}
	if n := noExecuteTaints(h.node("pi-2")); len(n) != 0 {
		t.Fatalf("ready node pi-2: got taints %v, want none", n)
	}

	h.setReady("pi-1", corev1.ConditionTrue)
	h.Eventually(waitFor, func() error {
		if n := noExecuteTaints(h.node("pi-1")); len(n) != 0 {
			return fmt.Errorf("node pi-1 taints %v after Ready=True, want none", n)
		}
		return nil
	})
}

func TestNotReadyNodeTaintAndCustomTaint(t *testing.T) {
	h := start(t)
	h.createNode("pi-1")
	h.createPod("rs-a", "pi-1", "ReplicaSet")
	h.setReady("pi-1", corev1.ConditionFalse)
	h.waitTaint("pi-1", corev1.TaintNodeNotReady)
	time.Sleep(300 * time.Millisecond)
	if _, err := h.pod("rs-a"); err != nil {
		t.Fatalf("pod rs-a: got %v, want it kept for its default 300 s", err)
	}
	if p, _ := h.pod("rs-a"); hasFalseReady(p) {
		t.Fatal("a pod of a node that reports NotReady was marked not Ready; the agent owns that")
	}
	// An operator's NoExecute taint the pod does not tolerate evicts it at once.
	n := h.node("pi-1")
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoExecute})
	if _, err := h.Client.Update(h.Ctx, n); err != nil {
		t.Fatalf("taint node: %v", err)
	}
	h.waitEvicted("rs-a")
	h.Eventually(waitFor, func() error {
		for _, tt := range h.node("pi-1").Spec.Taints {
			if tt.Key == "example.com/maintenance" && tt.TimeAdded == nil {
				return fmt.Errorf("operator taint has no timeAdded yet")
			}
		}
		return nil
	})
}

func hasFalseReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}

// TestTaintEvictionMarksDisruptionTarget: an evicted pod carries
// DisruptionTarget True (DeletionByTaintManager), written before its
// deletion, for a Job's podFailurePolicy to read.
func TestTaintEvictionMarksDisruptionTarget(t *testing.T) {
	h := start(t)
	h.createNode("pi-1")
	h.createPod("rs-a", "pi-1", "ReplicaSet")
	n := h.node("pi-1")
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoExecute})
	if _, err := h.Client.Update(h.Ctx, n); err != nil {
		t.Fatalf("taint node: %v", err)
	}
	h.waitEvicted("rs-a")
	p, err := h.pod("rs-a")
	if err != nil {
		t.Fatalf("pod rs-a: %v (want it terminating)", err)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == api.DisruptionByTaintManager {
			return
		}
	}
	t.Errorf("pod rs-a: got conditions %+v, want DisruptionTarget True (%s)", p.Status.Conditions, api.DisruptionByTaintManager)
}
