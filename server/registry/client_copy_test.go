package registry

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestClientCreateLeavesTheCallersObject: the in-process client's creates,
// named or with a generated name, never modify the object passed in (a
// controller creates many pods from one template).
func TestClientCreateLeavesTheCallersObject(t *testing.T) {
	c, ctx := newTestRegistry(t).Client(), context.Background()
	for _, meta := range []metav1.ObjectMeta{
		{Name: "named", Namespace: "default", Labels: map[string]string{"app": "web"}},
		{GenerateName: "web-", Namespace: "default", Labels: map[string]string{"app": "web"}},
	} {
		pod := &corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
		before := pod.DeepCopy()
		created, err := c.Create(ctx, pod)
		if err != nil {
			t.Fatalf("create %+v: %v", meta, err)
		}
		if !reflect.DeepEqual(pod, before) {
			t.Fatalf("create modified its argument: got %+v, want %+v", pod, before)
		}
		created.(*corev1.Pod).Labels["app"] = "changed"
		if pod.Labels["app"] != "web" {
			t.Fatalf("the created object shares the argument's labels")
		}
	}
}

// TestClientUpdatesLeaveTheCallersObject: node status hands UpdateStatus a
// pod that shares its metadata and spec with the shared cache's.
func TestClientUpdatesLeaveTheCallersObject(t *testing.T) {
	c, ctx := newTestRegistry(t).Client(), context.Background()
	created, err := c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}})
	if err != nil {
		t.Fatal(err)
	}
	pod := created.(*corev1.Pod)
	pod.Status.Phase = corev1.PodRunning
	pod.Labels = map[string]string{"dropped": "by-a-status-write"}
	before := pod.DeepCopy()
	if _, err := c.UpdateStatus(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pod, before) {
		t.Fatalf("UpdateStatus modified its argument: got %+v, want %+v", pod, before)
	}
	pod.Status.Phase, pod.ResourceVersion = corev1.PodPending, "" // unconditional
	before = pod.DeepCopy()
	if _, err := c.Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pod, before) {
		t.Fatalf("Update modified its argument: got %+v, want %+v", pod, before)
	}
}
