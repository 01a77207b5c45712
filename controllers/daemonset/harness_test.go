package daemonset

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

// harness is a DaemonSet controller on the real store and admission path,
// with a simulated node agent that starts pods.
type harness struct {
	*controllertest.Env
	ctrl   *Controller
	pods   *controllers.Informer
	events *controllers.Informer
}

var eventResource = controllers.MustResource("", "events")

func start(t testing.TB) *harness {
	t.Helper()
	env := controllertest.New(t)
	h := &harness{Env: env, pods: env.Cache.Informer(podResource), events: env.Cache.Informer(eventResource)}
	h.ctrl = New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})
	h.ctrl.FailedPodBackoff = 50 * time.Millisecond
	env.FinishPodDeletions() // the nodes stop deleted pods at once
	env.Start()
	env.Go(func(ctx context.Context) { h.ctrl.Run(ctx, 2) })
	return h
}

// runAgent plays every node's agent: a pending pod becomes Running and
// Ready once it has been seen for readyAfter.
func (h *harness) runAgent(readyAfter time.Duration) {
	h.Go(func(ctx context.Context) {
		seen := map[types.UID]time.Time{}
		for ctx.Err() == nil {
			for _, o := range h.pods.List("", nil) {
				pod := o.(*corev1.Pod)
				if pod.Status.Phase != corev1.PodPending || pod.Spec.NodeName == "" {
					continue
				}
				if first, ok := seen[pod.UID]; !ok {
					seen[pod.UID] = time.Now()
				} else if time.Since(first) >= readyAfter {
					h.setPhase(ctx, pod, corev1.PodRunning, true)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// setPhase writes a pod's phase and Ready condition as an agent would;
// a conflict or a vanished pod is left for the next round.
func (h *harness) setPhase(ctx context.Context, pod *corev1.Pod, phase corev1.PodPhase, ready bool) {
	cp := pod.DeepCopy()
	cp.Status.Phase = phase
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	cp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Now()}}
	_, err := h.Client.UpdateStatus(ctx, cp)
	if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		h.T.Errorf("update status of pod %s: %v", pod.Name, err)
	}
}

func (h *harness) addNode(name string, labels map[string]string, taints ...corev1.Taint) {
	h.T.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
	controllertest.MustCreate(h.Env, node)
}

// editNode applies change to the stored node, retrying on conflicts.
func (h *harness) editNode(name string, change func(n *corev1.Node)) {
	h.T.Helper()
	controllertest.Edit(h.Env, nodeResource, "", name, change)
}

func (h *harness) editDS(name string, change func(ds *appsv1.DaemonSet)) {
	h.T.Helper()
	controllertest.Edit(h.Env, dsResource, "default", name, change)
}

func dsObject(name string, nodeSelector map[string]string) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{NodeSelector: nodeSelector,
					Containers: []corev1.Container{{Name: "agent", Image: "registry.local/agent:1"}}},
			},
		},
	}
}

func (h *harness) createDS(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	h.T.Helper()
	return controllertest.MustCreate(h.Env, ds)
}

func (h *harness) getDS(name string) *appsv1.DaemonSet {
	h.T.Helper()
	return controllertest.MustGet[*appsv1.DaemonSet](h.Env, dsResource, "default", name)
}

// podsByNode is the cached pods ds controls, by node.
func (h *harness) podsByNode(ds *appsv1.DaemonSet) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, o := range h.pods.ByIndex(controllers.IndexOwner, string(ds.UID)) {
		pod := o.(*corev1.Pod)
		out[pod.Spec.NodeName] = append(out[pod.Spec.NodeName], pod)
	}
	return out
}

// waitNodes waits until ds has exactly one pod on each of nodes and none
// elsewhere.
func (h *harness) waitNodes(ds *appsv1.DaemonSet, nodes ...string) map[string][]*corev1.Pod {
	h.T.Helper()
	var got map[string][]*corev1.Pod
	h.Eventually(waitFor, func() error {
		got = h.podsByNode(ds)
		if len(got) != len(nodes) {
			return fmt.Errorf("pods on %d nodes (%v), want %d %v", len(got), keys(got), len(nodes), nodes)
		}
		for _, n := range nodes {
			if len(got[n]) != 1 {
				return fmt.Errorf("node %s has %d pods, want 1", n, len(got[n]))
			}
		}
		return nil
	})
	return got
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// waitStatus waits until check accepts the stored status.
func (h *harness) waitStatus(name string, check func(s appsv1.DaemonSetStatus, gen int64) error) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		ds := h.getDS(name)
		return check(ds.Status, ds.Generation)
	})
}

func rolledOut(want int32) func(appsv1.DaemonSetStatus, int64) error {
	return func(s appsv1.DaemonSetStatus, gen int64) error {
		if s.ObservedGeneration < gen || s.DesiredNumberScheduled != want || s.UpdatedNumberScheduled != want ||
			s.NumberAvailable != want || s.NumberReady != want || s.CurrentNumberScheduled != want {
			return fmt.Errorf("status %+v (generation %d), want %d desired, updated and available", s, gen, want)
		}
		return nil
	}
}

func intOrString(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}
