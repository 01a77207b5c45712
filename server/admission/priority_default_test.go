package admission

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestGlobalDefaultFollowsChanges: with the shared cache (where the
// default is remembered between pods), every pod sees the global default
// as it stands when the pod is created: made after pods, turned off by
// an update, made again, deleted.
func TestGlobalDefaultFollowsChanges(t *testing.T) {
	reg := benchRegistry(t, true)
	c, ctx := reg.Client(), context.Background()
	n := 0
	wantPod := func(class string, value int32) {
		t.Helper()
		for range 3 { // the first one lists, the others may be remembered
			n++
			got := mustCreate(t, c, pod(fmt.Sprintf("p%d", n))).(*corev1.Pod)
			if got.Spec.PriorityClassName != class || *got.Spec.Priority != value {
				t.Fatalf("pod %d: class %q priority %d, want %q %d", n, got.Spec.PriorityClassName, *got.Spec.Priority, class, value)
			}
		}
	}
	wantPod("", 0)
	batch := mustCreate(t, c, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Value: 1000,
		GlobalDefault: true}).(*schedulingv1.PriorityClass)
	wantPod("batch", 1000)
	batch = batch.DeepCopy()
	batch.GlobalDefault = false
	if _, err := c.Update(ctx, batch); err != nil {
		t.Fatalf("turn batch's globalDefault off: %v", err)
	}
	wantPod("", 0)
	mustCreate(t, c, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "low"}, Value: 10, GlobalDefault: true})
	wantPod("low", 10)
	if _, err := reg.Delete(ctx, pcRes, "", "low", nil); err != nil {
		t.Fatalf("delete low: %v", err)
	}
	wantPod("", 0)
}
