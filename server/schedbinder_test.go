package server

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/registry/registrytest"
)

// TestSchedulerEventIsStored: the scheduler's Event about a pod is
// admitted and stored as a create through the client would store it.
func TestSchedulerEventIsStored(t *testing.T) {
	reg, ctx := registrytest.New(t), context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "u1"}}
	b := &schedulerBinder{reg: reg}
	if err := b.Event(ctx, pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned default/web-1 to n1"); err != nil {
		t.Fatal(err)
	}
	list, err := reg.List(ctx, eventsResource, "default", registry.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("got %d events, want 1", len(list.Items))
	}
	ev := list.Items[0].(*corev1.Event)
	if ev.InvolvedObject.Name != "web-1" || ev.InvolvedObject.UID != "u1" || ev.Reason != "Scheduled" ||
		ev.Source.Component != SchedulerName || ev.UID == "" || ev.CreationTimestamp.IsZero() {
		t.Fatalf("got %+v, want the admitted Scheduled event of web-1", ev)
	}
}
