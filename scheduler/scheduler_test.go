package scheduler

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/datastore"
)

// newIdleScheduler builds a Scheduler whose parts the test drives by hand.
func newIdleScheduler(t testing.TB) *Scheduler {
	t.Helper()
	store := openStore(t, datastore.SQLiteConfig{})
	s, err := New(Config{Store: store, Binder: &storeBinder{store: store}, Clock: newFakeClock(), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// parkUnschedulable queues a pod and records one failed attempt.
func parkUnschedulable(t testing.TB, s *Scheduler, name string) {
	t.Helper()
	podHandler{s}.upsert(makePod("default", name))
	s.queue.unschedulable(popNow(t, s.queue), "no")
}

func unschedulableCount(s *Scheduler) int {
	_, _, n, _ := s.queue.stats()
	return n
}

func TestEventsThatMoveUnschedulablePods(t *testing.T) {
	s := newIdleScheduler(t)
	nodes, pods := nodeHandler{s}, podHandler{s}
	nodes.upsert(makeNode("n1"))
	pods.upsert(makePod("default", "bound", podOn("n1"), podReq("1", "")))
	tests := []struct {
		name  string
		event func()
		moves bool
	}{
		{"heartbeat", func() {
			nodes.upsert(makeNode("n1", func(n *corev1.Node) { n.Status.Conditions[0].Message = "fine" }))
		}, false},
		{"image pulled", func() {
			nodes.upsert(makeNode("n1", func(n *corev1.Node) { n.Status.Images = []corev1.ContainerImage{{Names: []string{"x"}}} }))
		}, false},
		{"label added", func() { nodes.upsert(makeNode("n1", nodeLabels("disk", "ssd"))) }, true},
		{"node added", func() { nodes.upsert(makeNode("n2")) }, true},
		{"unbound pod deleted", func() { pods.remove("default/never-bound") }, false},
		{"bound pod finished", func() {
			pods.upsert(makePod("default", "bound", podOn("n1"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }))
		}, true},
		{"bound pod deleted", func() {
			pods.upsert(makePod("default", "bound2", podOn("n1")))
			pods.remove("default/bound2")
		}, true},
	}
	for i, tc := range tests {
		parkUnschedulable(t, s, fmt.Sprint("waiting-", i))
		tc.event()
		if moved := unschedulableCount(s) == 0; moved != tc.moves {
			t.Errorf("%s: got moved=%v, want %v", tc.name, moved, tc.moves)
		}
		s.queue.delete(fmt.Sprint("default/waiting-", i))
	}
}

func TestPodHandlerSortsPods(t *testing.T) {
	s := newIdleScheduler(t)
	pods := podHandler{s}
	pods.upsert(makePod("default", "mine"))
	pods.upsert(makePod("default", "bramble", func(p *corev1.Pod) { p.Spec.SchedulerName = "bramble" }))
	pods.upsert(makePod("default", "theirs", func(p *corev1.Pod) { p.Spec.SchedulerName = "other" }))
	pods.upsert(makePod("default", "failed", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }))
	if active, _, _, _ := s.queue.stats(); active != 2 {
		t.Fatalf("got %d queued, want 2 (mine, bramble)", active)
	}
	pods.upsert(makePod("default", "mine", podOn("n1"))) // bound by someone else
	if active, _, _, _ := s.queue.stats(); active != 1 {
		t.Errorf("after it was bound: got %d queued, want 1", active)
	}
	if node, _, ok := s.cache.counted("default/mine"); !ok || node != "n1" {
		t.Errorf("got it counted on %q (%v), want n1", node, ok)
	}
}

// hookBinder binds through bind instead of the store binder's Bind.
type hookBinder struct {
	*storeBinder
	bind func(ctx context.Context, pod *corev1.Pod, node string) error
}

func (h *hookBinder) Bind(ctx context.Context, pod *corev1.Pod, node string) error {
	return h.bind(ctx, pod, node)
}

func TestConflictWithUnboundPodIsRetried(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	conflicts := 2
	b := &hookBinder{storeBinder: &storeBinder{store: store}}
	b.bind = func(ctx context.Context, pod *corev1.Pod, node string) error {
		b.mu.Lock()
		c := conflicts
		conflicts--
		b.mu.Unlock()
		if c > 0 {
			return apierrors.NewConflict(podsGR, pod.Name, fmt.Errorf("the object has been modified"))
		}
		return b.storeBinder.Bind(ctx, pod, node)
	}
	putObject(t, store, makeNode("n1"))
	putObject(t, store, makePod("default", "p"))
	startScheduler(t, store, b)
	waitPod(t, store, "default", "p", "bound after two conflicts", isBound)
}

func TestPodDeletedWhileBinding(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	entered, release := make(chan struct{}), make(chan struct{})
	b := &hookBinder{storeBinder: &storeBinder{store: store}}
	b.bind = func(ctx context.Context, pod *corev1.Pod, node string) error {
		close(entered)
		<-release
		return b.storeBinder.Bind(ctx, pod, node) // the pod is gone by now: NotFound
	}
	putObject(t, store, makeNode("n1"))
	putObject(t, store, makePod("default", "p", podReq("1", "")))
	s := startScheduler(t, store, b)
	<-entered
	if _, assumed, _ := s.cache.counted("default/p"); !assumed {
		t.Fatal("while binding: got the pod not assumed, want it counted on its node")
	}
	if _, _, err := store.Delete(context.Background(), podsResource.Key("default", "p"), 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, _, ok := s.cache.counted("default/p"); return !ok })
	close(release)
	waitFor(t, func() bool { _, _, _, total := s.queue.stats(); return total == 0 })
	if _, _, ok := s.cache.counted("default/p"); ok {
		t.Error("after the failed binding: got the pod counted, want it gone")
	}
}
