package daemonset

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

func TestOnePodPerNodeFollowsNodes(t *testing.T) {
	h := start(t)
	h.runAgent(0)
	for _, n := range []string{"pi-1", "pi-2", "pi-3"} {
		h.addNode(n, nil)
	}
	ds := h.createDS(dsObject("logger", nil))
	got := h.waitNodes(ds, "pi-1", "pi-2", "pi-3")
	checkPod(t, ds, got["pi-1"][0])
	h.waitStatus("logger", rolledOut(3))

	h.addNode("pi-4", nil)
	h.waitNodes(ds, "pi-1", "pi-2", "pi-3", "pi-4")
	h.waitStatus("logger", rolledOut(4))

	if err := h.Client.Delete(h.Ctx, nodeResource, "", "pi-2", controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete node pi-2: %v", err)
	}
	h.waitNodes(ds, "pi-1", "pi-3", "pi-4")
	h.waitStatus("logger", rolledOut(3))
	h.waitEvent(ds, "SuccessfulCreate")
	h.waitEvent(ds, "SuccessfulDelete")
}

// checkPod checks what every daemon pod carries.
func checkPod(t *testing.T, ds *appsv1.DaemonSet, pod *corev1.Pod) {
	t.Helper()
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.UID != ds.UID || ref.Kind != "DaemonSet" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("controller ref %+v, want DaemonSet %s with blockOwnerDeletion", ref, ds.UID)
	}
	if got, want := pod.Labels[LabelRevisionHash], templateHash(&ds.Spec.Template); got != want {
		t.Errorf("label %s = %q, want %q", LabelRevisionHash, got, want)
	}
	if got := pod.Labels[LabelTemplateGeneration]; got != "1" {
		t.Errorf("label %s = %q, want 1", LabelTemplateGeneration, got)
	}
	if got, want := pod.GenerateName, ds.Name+"-"; got != want {
		t.Errorf("generateName %q, want %q", got, want)
	}
	taint := corev1.Taint{Key: taintUnreachable, Effect: corev1.TaintEffectNoExecute}
	if !tolerates(pod.Spec.Tolerations, &taint) {
		t.Errorf("tolerations %+v do not tolerate %s", pod.Spec.Tolerations, taint.Key)
	}
}

func (h *harness) waitEvent(obj metav1.Object, reason string) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		for _, o := range h.events.List(obj.GetNamespace(), nil) {
			ev := o.(*corev1.Event)
			if ev.InvolvedObject.UID == obj.GetUID() && ev.Reason == reason {
				if ev.Source.Component != Component {
					return fmt.Errorf("event %s from %q, want %q", reason, ev.Source.Component, Component)
				}
				return nil
			}
		}
		return fmt.Errorf("no %s event for %s", reason, obj.GetName())
	})
}

func TestNodeSelectorAndTaints(t *testing.T) {
	h := start(t)
	h.runAgent(0)
	edge := map[string]string{"role": "edge"}
	h.addNode("a", edge)
	h.addNode("b", edge, corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule})
	h.addNode("c", map[string]string{"role": "core"})
	h.addNode("d", edge, corev1.Taint{Key: taintNotReady, Effect: corev1.TaintEffectNoExecute})
	h.addNode("e", edge, corev1.Taint{Key: taintUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	ds := h.createDS(dsObject("edge", edge))
	h.waitNodes(ds, "a", "d", "e")

	h.editNode("c", func(n *corev1.Node) { n.Labels["role"] = "edge" })
	h.waitNodes(ds, "a", "c", "d", "e")

	h.editNode("a", func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "evict", Effect: corev1.TaintEffectNoExecute})
	})
	h.waitNodes(ds, "c", "d", "e")

	// A NoSchedule taint added later leaves the running pod alone.
	h.editNode("d", func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "late", Effect: corev1.TaintEffectNoSchedule})
	})
	h.waitStatus("edge", func(s appsv1.DaemonSetStatus, _ int64) error {
		if s.DesiredNumberScheduled != 2 || s.NumberMisscheduled != 1 {
			return fmt.Errorf("desired %d misscheduled %d, want 2 and 1", s.DesiredNumberScheduled, s.NumberMisscheduled)
		}
		return nil
	})
	h.waitNodes(ds, "c", "d", "e")
}

func TestRollingUpdateKeepsMaxUnavailable(t *testing.T) {
	h := start(t)
	h.runAgent(100 * time.Millisecond)
	nodes := []string{"n1", "n2", "n3", "n4", "n5"}
	for _, n := range nodes {
		h.addNode(n, nil)
	}
	obj := dsObject("fleet", nil)
	obj.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: intOrString("2")}}
	ds := h.createDS(obj)
	h.waitNodes(ds, nodes...)
	h.waitStatus("fleet", rolledOut(5))

	mon := h.monitorUnavailable(ds, nodes)
	h.editDS("fleet", func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "registry.local/agent:2" })
	newHash := templateHash(&h.getDS("fleet").Spec.Template)
	h.waitStatus("fleet", rolledOut(5))
	peak := mon.stop()
	if peak > 2 {
		t.Errorf("at one point %d nodes had no available pod, want at most maxUnavailable 2", peak)
	}
	if peak == 0 {
		t.Errorf("the monitor never saw a node without an available pod; the rollout was not observed")
	}
	for node, pods := range h.waitNodes(ds, nodes...) {
		if got := podHash(pods[0]); got != newHash {
			t.Errorf("pod on %s has hash %q, want %q", node, got, newHash)
		}
	}
}

func TestFailedPodIsReplaced(t *testing.T) {
	h := start(t)
	h.runAgent(0)
	h.addNode("pi", nil)
	ds := h.createDS(dsObject("flaky", nil))
	first := h.waitNodes(ds, "pi")["pi"][0]
	h.waitStatus("flaky", rolledOut(1))
	o, err := h.Client.Get(h.Ctx, podResource, "default", first.Name)
	if err != nil {
		t.Fatalf("get pod %s: %v", first.Name, err)
	}
	h.setPhase(h.Ctx, o.(*corev1.Pod), corev1.PodFailed, false)
	h.Eventually(waitFor, func() error {
		pods := h.podsByNode(ds)["pi"]
		if len(pods) != 1 || pods[0].UID == first.UID {
			return fmt.Errorf("pods on pi: %d (first %s still there?), want one replacement", len(pods), first.Name)
		}
		return nil
	})
	h.waitStatus("flaky", rolledOut(1))
}

func TestDuplicatePodRemovedKeepingOldest(t *testing.T) {
	h := start(t)
	h.addNode("pi", nil)
	ds := h.createDS(dsObject("dup", nil))
	oldest := h.waitNodes(ds, "pi")["pi"][0]
	time.Sleep(1100 * time.Millisecond) // creationTimestamp has second precision
	extra := newPod(ds, templateHash(&ds.Spec.Template), "pi")
	if _, err := h.Client.Create(h.Ctx, extra); err != nil {
		t.Fatalf("create duplicate pod: %v", err)
	}
	h.Eventually(waitFor, func() error {
		pods := h.podsByNode(ds)["pi"]
		if len(pods) != 1 || pods[0].UID != oldest.UID {
			return fmt.Errorf("%d pods on pi, want only the oldest %s", len(pods), oldest.Name)
		}
		return nil
	})
}

func TestOnDeleteReplacesOnlyDeletedPods(t *testing.T) {
	h := start(t)
	h.runAgent(0)
	h.addNode("a", nil)
	h.addNode("b", nil)
	obj := dsObject("manual", nil)
	obj.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	ds := h.createDS(obj)
	before := h.waitNodes(ds, "a", "b")
	h.waitStatus("manual", rolledOut(2))
	h.editDS("manual", func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "registry.local/agent:2" })
	newHash := templateHash(&h.getDS("manual").Spec.Template)
	h.waitStatus("manual", func(s appsv1.DaemonSetStatus, gen int64) error {
		if s.ObservedGeneration != gen || s.UpdatedNumberScheduled != 0 {
			return fmt.Errorf("observed %d of %d, updated %d, want the new generation and 0 updated", s.ObservedGeneration, gen, s.UpdatedNumberScheduled)
		}
		return nil
	})
	victim := before["a"][0]
	if err := h.Client.Delete(h.Ctx, podResource, "default", victim.Name, controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod %s: %v", victim.Name, err)
	}
	h.Eventually(waitFor, func() error {
		got := h.podsByNode(ds)
		if len(got["a"]) != 1 || podHash(got["a"][0]) != newHash {
			return fmt.Errorf("node a: %d pods, want one with hash %s", len(got["a"]), newHash)
		}
		if len(got["b"]) != 1 || got["b"][0].UID != before["b"][0].UID {
			return fmt.Errorf("node b's pod was replaced; OnDelete must leave it")
		}
		return nil
	})
}
