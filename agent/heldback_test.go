package agent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/internal/tmpfstest"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// TestPodsHeldBackOnAFullDiskAreReported (issue 14, defect 5): with the
// agent's data dir on a real full tmpfs, a pod the node receives cannot be
// stored, so it is not run; it must be reported Pending with reason
// NodeDiskFull (it used to sit in Pending with no reason), by a change and
// by a relist alike, while a pod already held is not reported again.
// Once space is freed the pod is stored and handed to the pod manager.
func TestPodsHeldBackOnAFullDiskAreReported(t *testing.T) {
	ctx := context.Background()
	dir := tmpfstest.Mount(t, "1m")
	m := &fakeManager{}
	a := NewApplier(openStore(t, dir), m)
	var held []string
	a.SetHeldBack(func(pod *corev1.Pod, err error) {
		if st := heldBackStatus(err); st.Phase != corev1.PodPending || st.Reason != ReasonNodeDiskFull || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("held back %s: got status %+v (err %v), want Pending NodeDiskFull for ENOSPC", pod.Name, st, err)
		}
		held = append(held, pod.Name)
	})
	old := change(t, mqtt.Added, ref("pods", "default", "old"), testPod("old", "u0"))
	if err := a.Apply(ctx, mqtt.Event{Type: mqtt.EventChanges, Rev: 1, Changes: []mqtt.Change{old}}); err != nil {
		t.Fatal(err)
	}
	ballast := tmpfstest.Fill(t, dir)
	big := testPod("new", "u1")
	big.Annotations = map[string]string{"fill": string(bytes.Repeat([]byte("x"), 64<<10))}
	ev := mqtt.Event{Type: mqtt.EventChanges, Rev: 2, Prev: 1, Changes: []mqtt.Change{
		change(t, mqtt.Added, ref("pods", "default", "new"), big)}}
	if err := a.Apply(ctx, ev); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("apply on a full disk: got %v, want ENOSPC", err)
	}
	st := client.State{Rev: 2, Objects: []mqtt.Change{old, ev.Changes[0]}}
	if err := a.Resync(ctx, st); err == nil {
		t.Fatal("resync on a full disk: got nil, want an error")
	}
	if want := []string{"new", "new"}; len(held) != 2 || held[0] != "new" || held[1] != "new" {
		t.Fatalf("held back: got %v, want %v (the change, then the relist)", held, want)
	}
	os.Remove(ballast)
	m.calls = nil
	if err := a.Resync(ctx, st); err != nil {
		t.Fatalf("resync after space was freed: %v", err)
	}
	wantCalls(t, m, "sync new,old")
}
