package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// startSchedulerOnCache runs a Scheduler that reads the process's shared
// informer cache instead of following the store itself.
func startSchedulerOnCache(t *testing.T, cache *informer.Cache, b Binder) *Scheduler {
	t.Helper()
	s, err := New(Config{Cache: cache, Binder: b, Logger: testLogger(t),
		InitialBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchedulerOnTheSharedCache: the scheduler works from the shared cache,
// and one stopped (leadership lost) leaves nothing behind: its successor
// on the same cache places the pods that came meanwhile.
func TestSchedulerOnTheSharedCache(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	binder := &storeBinder{store: store}
	for _, n := range []*corev1.Node{makeNode("amd-1"), makeNode("amd-2"), makeNode("pi-1", nodeArch("arm64"))} {
		putObject(t, store, n)
	}
	for i := range 10 {
		putObject(t, store, makePod("default", fmt.Sprint("early-", i), podReq("100m", "64Mi"), owned("early")))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cache := informer.New(store, informer.Config{Logger: testLogger(t)})
	cache.Informer(nodesResource)
	cache.Informer(podsResource)
	cache.Start(ctx)
	t.Cleanup(func() { cancel(); cache.Stop() })

	first := startSchedulerOnCache(t, cache, binder)
	checkEarlyPodsSpread(t, store)
	first.Stop()

	putObject(t, store, makePod("default", "meanwhile", podReq("100m", "64Mi")))
	time.Sleep(100 * time.Millisecond)
	if p, _, _ := getPod(context.Background(), store, "default", "meanwhile"); isBound(p) {
		t.Fatalf("a stopped scheduler bound pod meanwhile to %s", p.Spec.NodeName)
	}
	second := startSchedulerOnCache(t, cache, binder)
	t.Cleanup(second.Stop)
	waitPod(t, store, "default", "meanwhile", "bound", isBound)
	putObject(t, store, makePod("default", "late", podReq("100m", "64Mi")))
	waitPod(t, store, "default", "late", "bound", isBound)
}
