package podgc

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const keep = "test.bramble.io/keep"

// kept creates a pod as pod does, holding a finalizer so that what the
// collector wrote before its force delete can be read afterwards.
func kept(env *controllertest.Env, name, node string, phase corev1.PodPhase, terminating bool) {
	env.T.Helper()
	pod(env, name, node, phase, false)
	controllertest.Edit(env, podsRes, "default", name, func(p *corev1.Pod) { p.Finalizers = append(p.Finalizers, keep) })
	if terminating {
		if err := env.Client.Delete(env.Ctx, podsRes, "default", name, controllers.DeleteOptions{}); err != nil {
			env.T.Fatal(err)
		}
	}
}

// waitForced waits until the pod is being deleted with grace 0 (the
// collector's delete) and returns it.
func waitForced(env *controllertest.Env, name string) *corev1.Pod {
	env.T.Helper()
	var p *corev1.Pod
	env.Eventually(waitFor, func() error {
		p = controllertest.MustGet[*corev1.Pod](env, podsRes, "default", name)
		if g := p.DeletionGracePeriodSeconds; g == nil || *g != 0 {
			return fmt.Errorf("pod %s: deletionGracePeriodSeconds %v, want 0", name, g)
		}
		return nil
	})
	return p
}

// TestMarksBeforeForceDelete: a running pod whose Node is gone becomes
// Failed with DisruptionTarget (DeletionByPodGC) before it goes; a
// terminating running pod on an out-of-service node becomes Failed with no
// condition; a pod already finished keeps its phase and gets none.
func TestMarksBeforeForceDelete(t *testing.T) {
	env := start(t, Config{Quarantine: 300 * time.Millisecond, Period: 100 * time.Millisecond})
	oos := corev1.Taint{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}
	node(env, "down", corev1.ConditionFalse, oos)
	kept(env, "orphan", "ghost", corev1.PodRunning, false)
	kept(env, "done", "ghost", corev1.PodSucceeded, false)
	kept(env, "stuck", "down", corev1.PodRunning, true)

	p := waitForced(env, "orphan")
	c := api.PodCondition(p, corev1.DisruptionTarget)
	if p.Status.Phase != corev1.PodFailed || c == nil || c.Status != corev1.ConditionTrue || c.Reason != api.DisruptionByPodGC ||
		c.Message != "PodGC: node no longer exists" {
		t.Errorf("orphan: got phase %s, DisruptionTarget %+v; want Failed, True %s", p.Status.Phase, c, api.DisruptionByPodGC)
	}
	if p = waitForced(env, "done"); p.Status.Phase != corev1.PodSucceeded || api.PodCondition(p, corev1.DisruptionTarget) != nil {
		t.Errorf("done: got phase %s, conditions %+v; want Succeeded without DisruptionTarget", p.Status.Phase, p.Status.Conditions)
	}
	if p = waitForced(env, "stuck"); p.Status.Phase != corev1.PodFailed || api.PodCondition(p, corev1.DisruptionTarget) != nil {
		t.Errorf("stuck: got phase %s, conditions %+v; want Failed without DisruptionTarget", p.Status.Phase, p.Status.Conditions)
	}
}
