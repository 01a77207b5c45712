package registry

import (
	"context"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// evictionEnv is a registry with pods of app=web and helpers to set a
// budget's status as the disruption controller would.
type evictionEnv struct {
	t *testing.T
	r *Registry
}

func (e evictionEnv) pod(name string, phase corev1.PodPhase, ready bool) {
	e.t.Helper()
	ctx := context.Background()
	o, err := e.r.Create(ctx, podsResource, "default", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, WriteOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	pod := o.(*corev1.Pod)
	pod.Status.Phase = phase
	status := map[bool]corev1.ConditionStatus{true: corev1.ConditionTrue, false: corev1.ConditionFalse}[ready]
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if _, err := e.r.Update(ctx, podsResource, "default", name, "status", pod, false); err != nil {
		e.t.Fatal(err)
	}
}

func (e evictionEnv) budget(name string, allowed, healthy int32, change func(*policyv1.PodDisruptionBudget)) {
	e.t.Helper()
	ctx := context.Background()
	two := intstr.FromInt32(2)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	if change != nil {
		change(pdb)
	}
	o, err := e.r.Create(ctx, pdbResource, "default", pdb, WriteOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	pdb = o.(*policyv1.PodDisruptionBudget)
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: allowed,
		CurrentHealthy: healthy, DesiredHealthy: 2, ExpectedPods: 3}
	if _, err := e.r.Update(ctx, pdbResource, "default", name, "status", pdb, false); err != nil {
		e.t.Fatal(err)
	}
}

func (e evictionEnv) evict(name string) error {
	return e.r.Evict(context.Background(), "default", name, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name}}, false)
}

// exists says whether the pod is stored and not being deleted: an evicted
// pod bound to a node stays, terminating, until its node stopped it.
func (e evictionEnv) exists(name string) bool {
	o, err := e.r.Get(context.Background(), podsResource, "default", name)
	return err == nil && o.GetDeletionTimestamp() == nil
}

func TestEvictionHonoursBudgets(t *testing.T) {
	e := evictionEnv{t: t, r: newTestRegistry(t)}
	for _, p := range []string{"a", "b", "c"} {
		e.pod(p, corev1.PodRunning, true)
	}
	e.pod("pending", corev1.PodPending, false)
	e.pod("sick", corev1.PodRunning, false)
	e.budget("web", 1, 3, nil)

	if err := e.evict("pending"); err != nil || e.exists("pending") {
		t.Fatalf("pending pod: got %v (still there: %v), want it deleted without the budget", err, e.exists("pending"))
	}
	if err := e.evict("sick"); err != nil || e.exists("sick") {
		t.Fatalf("unready pod while the budget is met: got %v, want it deleted without spending a disruption", err)
	}
	if err := e.evict("a"); err != nil || e.exists("a") {
		t.Fatalf("first eviction: got %v, want a deleted", err)
	}
	o, _ := e.r.Get(context.Background(), pdbResource, "default", "web")
	if st := o.(*policyv1.PodDisruptionBudget).Status; st.DisruptionsAllowed != 0 || st.DisruptedPods["a"].Time.IsZero() {
		t.Fatalf("budget status %+v, want disruptionsAllowed 0 and a in disruptedPods", st)
	}
	err := e.evict("b")
	var status apierrors.APIStatus
	if !apierrors.IsTooManyRequests(err) || err.Error() != "Cannot evict pod as it would violate the pod's disruption budget." || !e.exists("b") {
		t.Fatalf("second eviction: got %v, want upstream's 429 and b kept", err)
	}
	if ok := asStatus(err, &status); !ok || status.Status().Code != http.StatusTooManyRequests ||
		len(status.Status().Details.Causes) != 1 || status.Status().Details.Causes[0].Type != policyv1.DisruptionBudgetCause {
		t.Fatalf("second eviction status %+v, want code 429 with a DisruptionBudget cause", err)
	}
	e.budget("other", 5, 5, nil)
	if err := e.evict("b"); !apierrors.IsInternalError(err) {
		t.Fatalf("pod under two budgets: got %v, want upstream's 500", err)
	}
}

func TestEvictionWaitsForBudgetStatus(t *testing.T) {
	e := evictionEnv{t: t, r: newTestRegistry(t)}
	e.pod("a", corev1.PodRunning, true)
	e.budget("web", 1, 3, nil)
	o, _ := e.r.Get(context.Background(), pdbResource, "default", "web")
	pdb := o.(*policyv1.PodDisruptionBudget)
	pdb.Spec.MinAvailable = nil
	one := intstr.FromInt32(1)
	pdb.Spec.MaxUnavailable = &one
	if _, err := e.r.Update(context.Background(), pdbResource, "default", "web", "", pdb, false); err != nil {
		t.Fatal(err)
	}
	if err := e.evict("a"); !apierrors.IsTooManyRequests(err) || !e.exists("a") {
		t.Fatalf("budget changed, status not yet observed: got %v, want 429 and the pod kept", err)
	}
}

func asStatus(err error, into *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	*into = s
	return ok
}
