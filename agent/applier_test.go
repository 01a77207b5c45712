package agent

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// fakeManager records what the applier asks of the pod manager.
type fakeManager struct {
	calls []string
	last  []string // names of the last Sync
}

func (f *fakeManager) Sync(ps []*corev1.Pod) {
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	f.last = names
	f.calls = append(f.calls, "sync "+strings.Join(names, ","))
}

func (f *fakeManager) Update(p *corev1.Pod) {
	f.calls = append(f.calls, fmt.Sprintf("update %s %s", p.Name, p.UID))
}

func (f *fakeManager) Delete(uid types.UID) { f.calls = append(f.calls, "delete "+string(uid)) }

func testPod(name, uid string) *corev1.Pod {
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(uid)},
		Spec:       corev1.PodSpec{NodeName: "pi", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
}

func wantCalls(t testing.TB, f *fakeManager, want ...string) {
	t.Helper()
	if got := strings.Join(f.calls, "; "); got != strings.Join(want, "; ") {
		t.Errorf("manager calls: got %q, want %q", got, strings.Join(want, "; "))
	}
	f.calls = nil
}

func TestApplierDrivesManager(t *testing.T) {
	ctx := context.Background()
	m := &fakeManager{}
	a := NewApplier(openStore(t, t.TempDir()), m)
	ev := mqtt.Event{Type: mqtt.EventChanges, Rev: 5, Prev: 0, Changes: []mqtt.Change{
		change(t, mqtt.Added, ref("configmaps", "default", "conf"), map[string]any{"data": map[string]string{"k": "v"}}),
		change(t, mqtt.Added, ref("pods", "default", "web"), testPod("web", "u1")),
	}}
	if err := a.Apply(ctx, ev); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	wantCalls(t, m, "update web u1")

	ev = mqtt.Event{Type: mqtt.EventChanges, Rev: 8, Prev: 5, Changes: []mqtt.Change{
		change(t, mqtt.Deleted, ref("pods", "default", "web"), nil),
		change(t, mqtt.Deleted, ref("configmaps", "default", "conf"), nil),
	}}
	if err := a.Apply(ctx, ev); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	wantCalls(t, m, "delete u1")
	if got := a.store.Rev(); got != 8 {
		t.Errorf("store rev: got %d, want 8", got)
	}
	// Deleting what the node never had is a no-op.
	if err := a.Apply(ctx, mqtt.Event{Type: mqtt.EventChanges, Rev: 9, Prev: 8, Changes: []mqtt.Change{
		change(t, mqtt.Deleted, ref("pods", "default", "ghost"), nil)}}); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	wantCalls(t, m)
}

func TestApplierResyncAndRestart(t *testing.T) {
	dir := t.TempDir()
	m := &fakeManager{}
	a := NewApplier(openStore(t, dir), m)
	st := client.State{Rev: 20, Objects: []mqtt.Change{
		change(t, mqtt.Added, ref("pods", "default", "a"), testPod("a", "ua")),
		change(t, mqtt.Added, ref("pods", "default", "b"), testPod("b", "ub")),
	}}
	if err := a.Resync(context.Background(), st); err != nil {
		t.Fatalf("Resync: %v", err)
	}
	wantCalls(t, m, "sync a,b")

	// A restarted agent syncs from the store alone, with its static pods.
	m2 := &fakeManager{}
	a2 := NewApplier(openStore(t, dir), m2)
	if err := a2.SetStatic([]*corev1.Pod{testPod("etc-pi", "static-1")}); err != nil {
		t.Fatalf("SetStatic: %v", err)
	}
	wantCalls(t, m2, "sync a,b,etc-pi")
	if got := a2.store.Rev(); got != 20 {
		t.Errorf("rev after restart: got %d, want 20 (the client resumes from it)", got)
	}
	if err := a2.Resync(context.Background(), client.State{Rev: 25}); err != nil {
		t.Fatalf("Resync: %v", err)
	}
	wantCalls(t, m2, "sync etc-pi")
}

func TestApplierRefusesPodWithoutUID(t *testing.T) {
	m := &fakeManager{}
	a := NewApplier(openStore(t, t.TempDir()), m)
	err := a.Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: 2, Changes: []mqtt.Change{
		change(t, mqtt.Added, ref("pods", "default", "x"), testPod("x", ""))}})
	if err == nil || !strings.Contains(err.Error(), "metadata.uid") {
		t.Errorf("pod without uid: got %v, want an error naming metadata.uid", err)
	}
	wantCalls(t, m)
}

func TestApplierBatchIsOneDurableWrite(t *testing.T) {
	ctx := context.Background()
	m := &fakeManager{}
	s := openStore(t, t.TempDir())
	a := NewApplier(s, m)
	if err := a.Apply(ctx, podEvent(t, 2, mqtt.Added, "old", "u0")); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, m, "update old u0")
	syncs := countSyncs(s)
	gone := podEvent(t, 4, mqtt.Deleted, "a", "")
	gone.Changes = append(gone.Changes, podEvent(t, 4, mqtt.Deleted, "old", "").Changes...)
	err := a.ApplyBatch(ctx, []mqtt.Event{podEvent(t, 3, mqtt.Added, "a", "ua"), gone, podEvent(t, 5, mqtt.Added, "b", "ub")})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls(t, m, "update a ua", "delete ua", "delete u0", "update b ub")
	if *syncs != 1 {
		t.Errorf("fsyncs for a batch of 3 events: got %d, want 1", *syncs)
	}
	if pods := s.List("pods"); s.Rev() != 5 || len(pods) != 1 || pods[ref("pods", "default", "b")] == nil {
		t.Errorf("store after the batch: got %d pods at rev %d, want only b at 5", len(pods), s.Rev())
	}
}
