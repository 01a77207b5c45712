package admission

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

var pcRes = api.MustLookup("scheduling.k8s.io", "v1", "priorityclasses")

// TestPriorityResolved: pods get their class's value and policy, unknown
// classes are refused, and the global default applies to pods naming none.
func TestPriorityResolved(t *testing.T) {
	_, c := newRegistry(t)
	ctx := context.Background()
	crit := pod("crit")
	crit.Spec.PriorityClassName = "system-node-critical"
	got := mustCreate(t, c, crit).(*corev1.Pod)
	if got.Spec.Priority == nil || *got.Spec.Priority != 2000001000 || *got.Spec.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Fatalf("priority %v policy %v, want 2000001000 PreemptLowerPriority", got.Spec.Priority, got.Spec.PreemptionPolicy)
	}
	plain := mustCreate(t, c, pod("plain")).(*corev1.Pod)
	if plain.Spec.Priority == nil || *plain.Spec.Priority != 0 {
		t.Fatalf("no class: priority %v, want 0", plain.Spec.Priority)
	}
	lost := pod("lost")
	lost.Spec.PriorityClassName = "nope"
	_, err := c.Create(ctx, lost)
	wantError(t, err, `pods "lost" is forbidden: no PriorityClass with name nope was found`)

	never := corev1.PreemptNever
	mustCreate(t, c, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Value: 1000,
		GlobalDefault: true, PreemptionPolicy: &never})
	def := mustCreate(t, c, pod("def")).(*corev1.Pod)
	if def.Spec.PriorityClassName != "batch" || *def.Spec.Priority != 1000 || *def.Spec.PreemptionPolicy != never {
		t.Fatalf("global default: class %q priority %v policy %v", def.Spec.PriorityClassName, *def.Spec.Priority, *def.Spec.PreemptionPolicy)
	}
	_, err = c.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Value: 5, GlobalDefault: true})
	wantError(t, err, `priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass batch is already marked as default. Only one default can exist`)
	odd := pod("odd")
	seven := int32(7)
	odd.Spec.Priority = &seven
	if _, err := c.Create(ctx, odd); !apierrors.IsForbidden(err) {
		t.Fatalf("pod with its own priority: %v, want 403", err)
	}
}

// TestSystemPriorityClassesProtected: the system classes exist, may not be
// deleted, and no class's value may change.
func TestSystemPriorityClassesProtected(t *testing.T) {
	reg, c := newRegistry(t)
	ctx := context.Background()
	_, err := reg.Delete(ctx, pcRes, "", "system-cluster-critical", nil)
	wantError(t, err, `priorityclasses.scheduling.k8s.io "system-cluster-critical" is forbidden: this is a system priority class and cannot be deleted`)
	obj, err := reg.Get(ctx, pcRes, "", "system-cluster-critical")
	if err != nil {
		t.Fatal(err)
	}
	pc := obj.(*schedulingv1.PriorityClass)
	pc.Value = 5
	if _, err := c.Update(ctx, pc); !apierrors.IsInvalid(err) {
		t.Fatalf("value change: %v, want 422", err)
	}
	_, err = c.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-mine"}, Value: 1})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("system- name: %v, want 422", err)
	}
	mustCreate(t, c, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "gone"}, Value: 1})
	if _, err := reg.Delete(ctx, pcRes, "", "gone", nil); err != nil {
		t.Fatalf("delete a user class: %v", err)
	}
}

// TestRuntimeClassAdmission: a pod naming a missing class is refused; a
// class's overhead and node selector are set on the pod and counted.
func TestRuntimeClassAdmission(t *testing.T) {
	_, c := newRegistry(t)
	ctx := context.Background()
	gv := pod("gv")
	name := "gvisor"
	gv.Spec.RuntimeClassName = &name
	_, err := c.Create(ctx, gv)
	wantError(t, err, `pods "gv" is forbidden: pod rejected: RuntimeClass "gvisor" not found`)
	mustCreate(t, c, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Handler: "runsc",
		Overhead:   &nodev1.Overhead{PodFixed: hard("cpu", "250m", "memory", "64Mi")},
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"sandbox": "yes"}}})
	got := mustCreate(t, c, gv).(*corev1.Pod)
	if got.Spec.Overhead.Cpu().String() != "250m" || got.Spec.NodeSelector["sandbox"] != "yes" {
		t.Fatalf("overhead %v selector %v", got.Spec.Overhead, got.Spec.NodeSelector)
	}
	mustCreate(t, c, quotaObj("q", hard("requests.cpu", "600m")))
	two := pod("gv2", "requests.cpu", "200m")
	two.Spec.RuntimeClassName = &name
	_, err = c.Create(ctx, two) // 200m + 250m overhead, over 600m with gv's 250m
	wantError(t, err, `pods "gv2" is forbidden: exceeded quota: q, requested: requests.cpu=450m, used: requests.cpu=250m, limited: requests.cpu=600m`)
}
