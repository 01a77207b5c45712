package scheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
)

func unschedulableMessage(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Message
		}
	}
	return ""
}

func TestSchedulerBindsThroughTheStore(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	binder := &storeBinder{store: store}
	for _, n := range []*corev1.Node{makeNode("amd-1"), makeNode("amd-2"), makeNode("pi-1", nodeArch("arm64"))} {
		putObject(t, store, n)
	}
	for i := range 10 {
		putObject(t, store, makePod("default", fmt.Sprint("early-", i), podReq("100m", "64Mi"), owned("early")))
	}
	putObject(t, store, makePod("default", "huge", podReq("64", "1Gi")))
	putObject(t, store, makePod("default", "other", func(p *corev1.Pod) { p.Spec.SchedulerName = "someone-else" }))
	startScheduler(t, store, binder)
	checkEarlyPodsSpread(t, store)
	want := "0/3 nodes are available: 3 Insufficient cpu."
	waitPod(t, store, "default", "huge", "Unschedulable", func(p *corev1.Pod) bool { return unschedulableMessage(p) == want })

	// Pods created while running arrive through the watch.
	putObject(t, store, makePod("default", "late", podReq("100m", "64Mi")))
	late := waitPod(t, store, "default", "late", "bound", isBound)
	waitFor(t, func() bool { return len(binder.eventsOf("default", "late", reasonScheduled)) > 0 })
	if got := binder.eventsOf("default", "late", reasonScheduled); len(got) != 1 ||
		!strings.HasSuffix(got[0], "Successfully assigned default/late to "+late.Spec.NodeName) {
		t.Errorf("Scheduled events: got %q, want one naming the node", got)
	}

	// A node big enough arrives: the waiting pod is bound to it.
	putObject(t, store, makeNode("big", nodeAlloc("128", "256Gi")))
	if p := waitPod(t, store, "default", "huge", "bound", isBound); p.Spec.NodeName != "big" {
		t.Errorf("huge: got node %s, want big", p.Spec.NodeName)
	}
	if got := binder.eventsOf("default", "huge", reasonFailedScheduling); len(got) != 1 {
		t.Errorf("FailedScheduling events: got %d (%q), want 1", len(got), got)
	}
	if p, _, _ := getPod(context.Background(), store, "default", "other"); p.Spec.NodeName != "" {
		t.Errorf("another scheduler's pod: got bound to %s, want left alone", p.Spec.NodeName)
	}
}

// checkEarlyPodsSpread waits for the ten early pods to be bound, spread
// over the three nodes.
func checkEarlyPodsSpread(t testing.TB, store datastore.Store) {
	t.Helper()
	perNode := map[string]int{}
	for i := range 10 {
		p := waitPod(t, store, "default", fmt.Sprint("early-", i), "bound", isBound)
		perNode[p.Spec.NodeName]++
	}
	for node, n := range perNode {
		if n < 3 || n > 4 {
			t.Errorf("node %s got %d of 10 pods, want them spread (3 or 4)", node, n)
		}
	}
}

func TestSchedulerFreesResourcesOfDeletedAndFinishedPods(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	binder := &storeBinder{store: store}
	putObject(t, store, makeNode("n1", nodeAlloc("2", "4Gi")))
	putObject(t, store, makePod("default", "a", podReq("1500m", "1Gi")))
	startScheduler(t, store, binder)
	waitPod(t, store, "default", "a", "bound", isBound)

	putObject(t, store, makePod("default", "b", podReq("1500m", "1Gi")))
	waitPod(t, store, "default", "b", "Unschedulable", func(p *corev1.Pod) bool { return unschedulableMessage(p) != "" })
	if _, _, err := store.Delete(context.Background(), podsResource.Key("default", "a"), 0); err != nil {
		t.Fatal(err)
	}
	waitPod(t, store, "default", "b", "bound after a was deleted", isBound)

	putObject(t, store, makePod("default", "c", podReq("1500m", "1Gi")))
	waitPod(t, store, "default", "c", "Unschedulable", func(p *corev1.Pod) bool { return unschedulableMessage(p) != "" })
	b, _, _ := getPod(context.Background(), store, "default", "b")
	b.Status.Phase = corev1.PodSucceeded
	putObject(t, store, b)
	waitPod(t, store, "default", "c", "bound after b finished", isBound)
}

func TestSchedulerRetriesFailedBindings(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	binder := &storeBinder{store: store, failNext: 3}
	putObject(t, store, makeNode("n1"))
	putObject(t, store, makePod("default", "p", podReq("100m", "")))
	s := startScheduler(t, store, binder)
	waitPod(t, store, "default", "p", "bound after three failures", isBound)
	waitFor(t, func() bool {
		_, _, _, total := s.queue.stats()
		node, assumed, ok := s.cache.counted("default/p")
		return total == 0 && ok && !assumed && node == "n1"
	})
}

func TestSchedulerLeavesPodsBoundBySomeoneElse(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	binder := &storeBinder{store: store}
	putObject(t, store, makeNode("n1", nodeMaxPods(1)))
	s := startScheduler(t, store, binder)
	putObject(t, store, makePod("default", "manual", podOn("n1")))
	waitFor(t, func() bool { _, _, ok := s.cache.counted("default/manual"); return ok })
	putObject(t, store, makePod("default", "p"))
	waitPod(t, store, "default", "p", "Too many pods", func(p *corev1.Pod) bool {
		return unschedulableMessage(p) == "0/1 nodes are available: 1 Too many pods."
	})
	if _, _, err := store.Delete(context.Background(), podsResource.Key("default", "p"), 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, _, _, total := s.queue.stats(); return total == 0 })
}

func TestNewChecksConfig(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Binder: &storeBinder{}}, "Store is required"},
		{Config{Store: store}, "Binder is required"},
		{Config{Store: store, Binder: &storeBinder{}, PercentageOfNodesToScore: 150}, "PercentageOfNodesToScore is 150"},
		{Config{Store: store, Binder: &storeBinder{}, TopologyLabels: []string{""}}, "TopologyLabels[0] is empty"},
	}
	for _, tc := range tests {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
	s, err := New(Config{Store: store, Binder: &storeBinder{}, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	s.Stop() // returns once every goroutine has ended
}
