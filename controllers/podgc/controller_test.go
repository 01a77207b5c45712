package podgc

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

func start(t *testing.T, cfg Config) *controllertest.Env {
	t.Helper()
	env := controllertest.New(t)
	c := New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log}, cfg)
	env.Start()
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx, 1) }()
	t.Cleanup(func() { cancel(); <-done })
	return env
}

func node(env *controllertest.Env, name string, ready corev1.ConditionStatus, taints ...corev1.Taint) {
	controllertest.MustCreate(env, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}})
}

// pod creates a pod bound to node in phase; terminating deletes it
// gracefully, so it stays until its node (or the collector) finishes it.
func pod(env *controllertest.Env, name, node string, phase corev1.PodPhase, terminating bool) {
	env.T.Helper()
	p := controllertest.MustCreate(env, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}})
	p.Status.Phase = phase
	if _, err := env.Client.UpdateStatus(env.Ctx, p); err != nil {
		env.T.Fatal(err)
	}
	if terminating {
		if err := env.Client.Delete(env.Ctx, podsRes, "default", name, controllers.DeleteOptions{}); err != nil {
			env.T.Fatal(err)
		}
	}
}

func exists(env *controllertest.Env, name string) bool {
	env.T.Helper()
	_, err := env.Client.Get(env.Ctx, podsRes, "default", name)
	if err != nil && !apierrors.IsNotFound(err) {
		env.T.Fatal(err)
	}
	return err == nil
}

func waitGone(env *controllertest.Env, names ...string) {
	env.T.Helper()
	env.Eventually(waitFor, func() error {
		for _, n := range names {
			if exists(env, n) {
				return fmt.Errorf("pod %s still stored", n)
			}
		}
		return nil
	})
}

// TestOrphansAndOutOfService: a pod bound to a missing node goes after the
// quarantine; a terminating pod on an out-of-service node goes; a
// terminating pod on a node merely not Ready stays, as does a running one.
func TestOrphansAndOutOfService(t *testing.T) {
	env := start(t, Config{Quarantine: 300 * time.Millisecond, Period: 100 * time.Millisecond})
	oos := corev1.Taint{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}
	node(env, "down", corev1.ConditionUnknown, oos)
	node(env, "unreachable", corev1.ConditionUnknown)
	pod(env, "orphan", "ghost", corev1.PodRunning, false)
	pod(env, "stuck", "down", corev1.PodRunning, true)
	pod(env, "waiting", "unreachable", corev1.PodRunning, true)
	pod(env, "running", "down", corev1.PodRunning, false)
	waitGone(env, "orphan", "stuck")
	time.Sleep(500 * time.Millisecond) // a few more passes
	for _, n := range []string{"waiting", "running"} {
		if !exists(env, n) {
			t.Errorf("pod %s: deleted, want it kept", n)
		}
	}
}

// TestFinishedAboveThreshold: the oldest finished pods beyond the
// threshold go; running pods do not count.
func TestFinishedAboveThreshold(t *testing.T) {
	env := controllertest.New(t)
	node(env, "n1", corev1.ConditionTrue)
	for i := range 4 {
		pod(env, fmt.Sprintf("done-%d", i), "n1", corev1.PodSucceeded, false)
		time.Sleep(1100 * time.Millisecond) // creationTimestamp has seconds
	}
	pod(env, "running", "n1", corev1.PodRunning, false)
	c := New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log}, Config{Threshold: 2, Period: 100 * time.Millisecond})
	env.Start()
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx, 1) }()
	t.Cleanup(func() { cancel(); <-done })
	waitGone(env, "done-0", "done-1")
	for _, n := range []string{"done-2", "done-3", "running"} {
		if !exists(env, n) {
			t.Errorf("pod %s: deleted, want it kept", n)
		}
	}
}
