package publish

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// countingSource counts what a PodSource answered. It first lets the
// cache catch up, so that a loaded test machine cannot make every lookup
// time out (that fallback is tested on its own).
type countingSource struct {
	PodSource
	cache        *informer.Cache
	hits, misses atomic.Int64
}

func (c *countingSource) PodAt(namespace, name string, rev int64) (*corev1.Pod, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.cache.WaitForRevision(ctx, rev)
	pod, ok := c.PodSource.PodAt(namespace, name, rev)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return pod, ok
}

func startCache(t *testing.T, w writer) *informer.Cache {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := informer.New(w.store, informer.Config{Logger: quiet()})
	c.Informer(api.MustLookup("", "v1", "pods"))
	c.Start(ctx)
	t.Cleanup(func() { cancel(); c.Stop() })
	if !c.WaitForSync(ctx) {
		t.Fatal("cache did not sync")
	}
	return c
}

func TestPublisherTakesPodsFromTheCache(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	cache := startCache(t, w)
	src := &countingSource{PodSource: CachePods(cache), cache: cache}
	startPublisher(t, store, bus, Config{Pods: src})
	w.configMap("conf", "1")
	w.pod("web", "pi-1", "conf", "", "a")
	w.pod("db", "pi-2", "", "", "a")
	w.pod("web", "pi-2", "conf", "", "b") // moves, and takes conf along
	w.del("pods", "db")
	caughtUp(t, bus, w, "pi-1")
	caughtUp(t, bus, w, "pi-2")
	// The cache may have moved past a version (web is written twice) but
	// holds the last one of each pod.
	if src.hits.Load() == 0 {
		t.Errorf("the cache answered none of %d pod lookups", src.misses.Load())
	}
}

func TestCachePodsAnswersOnlyThatVersion(t *testing.T) {
	w := writer{t, openStore(t)}
	c := startCache(t, w)
	src := CachePods(c)
	first := w.pod("web", "pi-1", "", "", "a")
	second := w.pod("web", "pi-2", "", "", "a")
	pod, ok := src.PodAt("default", "web", second)
	if !ok || pod.Spec.NodeName != "pi-2" {
		t.Fatalf("PodAt(rev %d) = %v, %v; want the pod on pi-2", second, pod, ok)
	}
	if _, ok := src.PodAt("default", "web", first); ok {
		t.Errorf("PodAt(rev %d) answered though the cache holds rev %d", first, second)
	}
	if _, ok := src.PodAt("default", "web", second+100); ok {
		t.Error("PodAt of a revision the cache never reaches answered")
	}
}
