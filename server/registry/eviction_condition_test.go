package registry

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func (e evictionEnv) disruption(name string) *corev1.PodCondition {
	e.t.Helper()
	o, err := e.r.Get(context.Background(), podsResource, "default", name)
	if err != nil {
		e.t.Fatalf("pod %s: %v", name, err)
	}
	for _, c := range o.(*corev1.Pod).Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			return &c
		}
	}
	return nil
}

// TestEvictionMarksDisruptionTarget: an evicted pod carries DisruptionTarget
// (EvictionByEvictionAPI) while it terminates; a refused eviction, a dry run
// and a stale resourceVersion precondition write nothing; a current one
// still deletes the pod after the condition's own write.
func TestEvictionMarksDisruptionTarget(t *testing.T) {
	e := evictionEnv{t: t, r: newTestRegistry(t)}
	for _, p := range []string{"a", "b"} {
		e.pod(p, corev1.PodRunning, true)
	}
	e.pod("c", corev1.PodPending, false) // no budget needed: the preconditions decide
	e.pod("d", corev1.PodPending, false)
	e.budget("web", 1, 2, nil)
	if err := e.evict("a"); err != nil || e.exists("a") {
		t.Fatalf("eviction: got %v, want a deleted", err)
	}
	if c := e.disruption("a"); c == nil || c.Status != corev1.ConditionTrue || c.Reason != api.DisruptionByEvictionAPI {
		t.Errorf("evicted pod a: got DisruptionTarget %+v, want True (%s)", c, api.DisruptionByEvictionAPI)
	}
	if err := e.evict("b"); !apierrors.IsTooManyRequests(err) || e.disruption("b") != nil {
		t.Errorf("refused eviction of b: got %v, condition %+v; want 429 and no DisruptionTarget", err, e.disruption("b"))
	}
	withRV := func(name, rv string, dryRun bool) error {
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name},
			DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}}
		return e.r.Evict(context.Background(), "default", name, ev, dryRun)
	}
	o, _ := e.r.Get(context.Background(), podsResource, "default", "c")
	if err := withRV("c", o.GetResourceVersion(), true); err != nil || !e.exists("c") || e.disruption("c") != nil {
		t.Errorf("dry run: got %v, condition %+v; want the pod kept as it was", err, e.disruption("c"))
	}
	if err := withRV("c", "1", false); !apierrors.IsConflict(err) || e.disruption("c") != nil {
		t.Errorf("stale resourceVersion: got %v, condition %+v; want 409 and no DisruptionTarget", err, e.disruption("c"))
	}
	o, _ = e.r.Get(context.Background(), podsResource, "default", "d")
	if err := withRV("d", o.GetResourceVersion(), false); err != nil || e.exists("d") || e.disruption("d") == nil {
		t.Errorf("current resourceVersion: got %v, condition %+v; want d deleted with DisruptionTarget", err, e.disruption("d"))
	}
}
