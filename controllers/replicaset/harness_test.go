package replicaset

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

// harness is a controller running against the real store and admission.
type harness struct {
	*controllertest.Env
	ctrl *Controller
	// client is the controller's client: Env.Client unless before sets it.
	client controllers.Client
	pods   *controllers.Informer
	events *controllers.Informer
}

// start runs a ReplicaSet controller; before, if set, runs after the
// controller asked for its informers and before the cache starts.
func start(t testing.TB, before func(h *harness)) *harness {
	t.Helper()
	env := controllertest.New(t)
	h := &harness{Env: env, client: env.Client, pods: env.Cache.Informer(pods), events: env.Cache.Informer(eventsRes)}
	if before != nil {
		before(h)
	}
	h.ctrl = New(controllers.Deps{Cache: env.Cache, Client: h.client, Log: env.Log})
	env.Start()
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { defer close(done); h.ctrl.Run(ctx, 2) }()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

var eventsRes = controllers.MustResource("", "events")

func rsObject(name string, replicas, minReady int32) *appsv1.ReplicaSet {
	sel := map[string]string{"app": name}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas, MinReadySeconds: minReady,
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name, "tier": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
			},
		},
	}
}

func (h *harness) createRS(name string, replicas, minReady int32) *appsv1.ReplicaSet {
	h.T.Helper()
	out, err := h.Client.Create(h.Ctx, rsObject(name, replicas, minReady))
	if err != nil {
		h.T.Fatalf("create replicaset %s: %v", name, err)
	}
	return out.(*appsv1.ReplicaSet)
}

func (h *harness) getRS(name string) *appsv1.ReplicaSet {
	h.T.Helper()
	obj, err := h.Client.Get(h.Ctx, replicaSets, "default", name)
	if err != nil {
		h.T.Fatalf("get replicaset %s: %v", name, err)
	}
	return obj.(*appsv1.ReplicaSet)
}

// scale sets spec.replicas, retrying when the controller wrote meanwhile.
func (h *harness) scale(name string, n int32) {
	h.T.Helper()
	for range 20 {
		rs := h.getRS(name)
		rs.Spec.Replicas = &n
		_, err := h.Client.Update(h.Ctx, rs)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			h.T.Fatalf("scale %s to %d: %v", name, n, err)
		}
	}
	h.T.Fatalf("scale %s to %d: conflicts 20 times", name, n)
}

// owned lists the cached active pods rs controls.
func (h *harness) owned(rs *appsv1.ReplicaSet) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range h.pods.List("default", nil) {
		p := o.(*corev1.Pod)
		if ref := metav1.GetControllerOf(p); ref != nil && ref.UID == rs.UID && isActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// waitOwned waits until rs controls n pods, and returns them.
func (h *harness) waitOwned(rs *appsv1.ReplicaSet, n int) []*corev1.Pod {
	h.T.Helper()
	var got []*corev1.Pod
	h.Eventually(waitFor, func() error {
		if got = h.owned(rs); len(got) != n {
			return fmt.Errorf("replicaset %s controls %d pods, want %d", rs.Name, len(got), n)
		}
		return nil
	})
	return got
}

// markReady sets the pod Running with a Ready condition since at.
func (h *harness) markReady(name string, at time.Time) {
	h.T.Helper()
	obj, err := h.Client.Get(h.Ctx, pods, "default", name)
	if err != nil {
		h.T.Fatalf("get pod %s: %v", name, err)
	}
	p := obj.(*corev1.Pod)
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
		Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)})
	if _, err := h.Client.UpdateStatus(h.Ctx, p); err != nil {
		h.T.Fatalf("mark pod %s ready: %v", name, err)
	}
}

// waitStatus waits until the stored status passes check.
func (h *harness) waitStatus(name string, check func(st appsv1.ReplicaSetStatus) error) {
	h.T.Helper()
	h.Eventually(waitFor, func() error { return check(h.getRS(name).Status) })
}

// hasEvent reports whether an event about rs has the reason and message.
func (h *harness) hasEvent(rs *appsv1.ReplicaSet, reason, message string) error {
	for _, o := range h.events.List("default", nil) {
		ev := o.(*corev1.Event)
		if ev.InvolvedObject.UID == rs.UID && ev.Reason == reason && ev.Message == message {
			return nil
		}
	}
	var seen []string
	for _, o := range h.events.List("default", nil) {
		ev := o.(*corev1.Event)
		seen = append(seen, ev.Reason+" "+ev.Message)
	}
	return fmt.Errorf("no event %s %q about replicaset %s; events: %q", reason, message, rs.Name, seen)
}
