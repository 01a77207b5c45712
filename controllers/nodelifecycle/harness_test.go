package nodelifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

type harness struct {
	*controllertest.Env
	events *controllers.Informer
}

func start(t testing.TB) *harness {
	t.Helper()
	env := controllertest.New(t)
	h := &harness{Env: env, events: env.Cache.Informer(controllertest.Resource("", "events"))}
	c := New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})
	env.Start()
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx, 2) }()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

func (h *harness) createNode(name string) {
	h.T.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	controllertest.MustCreate(h.Env, node)
}

// setReady sets the node's Ready condition as the status monitor would,
// retrying when the controller wrote the node meanwhile.
func (h *harness) setReady(name string, status corev1.ConditionStatus) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		node := h.node(name)
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, Reason: "Test"}}
		_, err := h.Client.UpdateStatus(h.Ctx, node)
		if err != nil && !apierrors.IsConflict(err) {
			h.T.Fatalf("set node %s Ready=%s: %v", name, status, err)
		}
		return err
	})
}

// createPod binds a ready pod to node; kind "" makes a bare pod.
func (h *harness) createPod(name, node, kind string, tolerations ...corev1.Toleration) {
	h.T.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: node, Tolerations: tolerations,
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if kind != "" {
		yes := true
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: "owner",
			UID:        types.UID("00000000-0000-0000-0000-0000000000" + map[string]string{"ReplicaSet": "01", "DaemonSet": "02"}[kind]),
			Controller: &yes, BlockOwnerDeletion: &yes}}
	}
	out, err := h.Client.Create(h.Ctx, pod)
	if err != nil {
		h.T.Fatalf("create pod %s: %v", name, err)
	}
	p := out.(*corev1.Pod)
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := h.Client.UpdateStatus(h.Ctx, p); err != nil {
		h.T.Fatalf("mark pod %s ready: %v", name, err)
	}
}

func (h *harness) node(name string) *corev1.Node {
	h.T.Helper()
	return controllertest.MustGet[*corev1.Node](h.Env, nodesRes, "", name)
}

func (h *harness) pod(name string) (*corev1.Pod, error) {
	obj, err := h.Client.Get(h.Ctx, podsRes, "default", name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

func (h *harness) waitTaint(node, key string) corev1.Taint {
	h.T.Helper()
	var found corev1.Taint
	h.Eventually(waitFor, func() error {
		for _, t := range h.node(node).Spec.Taints {
			if t.Key == key && t.Effect == corev1.TaintEffectNoExecute {
				found = t
				return nil
			}
		}
		return fmt.Errorf("node %s taints %v, want %s:NoExecute", node, h.node(node).Spec.Taints, key)
	})
	return found
}

// waitEvicted waits until the pod is deleted: gone, or (a pod bound to a
// node is deleted gracefully) terminating until its node stops it.
func (h *harness) waitEvicted(name string) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		p, err := h.pod(name)
		if apierrors.IsNotFound(err) || (err == nil && p.DeletionTimestamp != nil) {
			return nil
		}
		return fmt.Errorf("pod %s: got err %v, want it evicted", name, err)
	})
}

func (h *harness) evictionEvent(pod string) bool {
	for _, e := range h.events.List("default", nil) {
		ev := e.(*corev1.Event)
		if ev.InvolvedObject.Name == pod && ev.Reason == "TaintManagerEviction" && ev.Source.Component == Component {
			return true
		}
	}
	return false
}

// setConditions sets Ready True plus conds, as the agent's heartbeat.
func (h *harness) setConditions(name string, conds ...corev1.NodeCondition) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		node := h.node(name)
		node.Status.Conditions = append([]corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}, conds...)
		_, err := h.Client.UpdateStatus(h.Ctx, node)
		if err != nil && !apierrors.IsConflict(err) {
			h.T.Fatalf("set node %s conditions: %v", name, err)
		}
		return err
	})
}

// waitTaints waits until the node's taints' keys are keys, in order.
func (h *harness) waitTaints(node string, keys ...string) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		var got []string
		for _, t := range h.node(node).Spec.Taints {
			got = append(got, t.Key+":"+string(t.Effect))
		}
		if len(got) != len(keys) {
			return fmt.Errorf("node %s taints %v, want keys %v", node, got, keys)
		}
		for i := range keys {
			if got[i] != keys[i]+":NoSchedule" {
				return fmt.Errorf("node %s taints %v, want %v, all NoSchedule", node, got, keys)
			}
		}
		return nil
	})
}
