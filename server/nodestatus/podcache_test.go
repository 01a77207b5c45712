package nodestatus_test

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/nodestatus"
)

// frozenPods is a pod cache stuck at whatever the test put in it: the
// worst a lagging informer cache can do.
type frozenPods struct {
	mu   sync.Mutex
	pods map[string]*corev1.Pod
}

func (f *frozenPods) Get(namespace, name string) (api.Object, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.pods[namespace+"/"+name]
	return p, ok
}

func (f *frozenPods) put(p *corev1.Pod) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pods[p.Namespace+"/"+p.Name] = p
}

// cached is the stored pod as the informer cache holds it: with its
// resourceVersion.
func (e *env) cached(name string) *corev1.Pod {
	e.t.Helper()
	res, _ := api.Lookup("", "v1", "pods")
	kv, err := e.store.Get(context.Background(), res.Key("default", name))
	if err != nil {
		e.t.Fatal(err)
	}
	obj, err := api.DecodeStored(res, kv.Value, kv.ModRevision)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj.(*corev1.Pod)
}

// TestStalePodCacheNeverSkipsAWrite: whatever a stale cache says (the pod
// is missing, unbound, already as reported, or an old version), the
// node's report ends up stored, and nothing written since the stale
// version is overwritten.
func TestStalePodCacheNeverSkipsAWrite(t *testing.T) {
	cache := &frozenPods{pods: map[string]*corev1.Pod{}}
	cfg := nodestatus.Config{GracePeriod: time.Hour, Pods: cache}
	e := newEnv(t, cfg)
	a := e.connect(t, "pi-1")
	isRunning := func(name string) func() bool {
		return func() bool { return e.pod(name).Status.Phase == corev1.PodRunning }
	}

	missing := e.boundPod("missing", "pi-1") // not in the cache at all
	a.report(t, running(missing))
	waitUntil(t, "pod missing Running", isRunning("missing"))

	e.boundPod("unbound", "pi-1")
	cached := e.cached("unbound")
	cached.Spec.NodeName = "" // as cached before the binding
	cache.put(cached)
	a.report(t, running(cached))
	waitUntil(t, "pod unbound Running", isRunning("unbound"))

	e.boundPod("old", "pi-1")
	cache.put(e.cached("old")) // cached as it was, then another writer adds a condition:
	changed := e.cached("old")
	changed.Status.Conditions = append(changed.Status.Conditions, corev1.PodCondition{Type: "example.com/gate", Status: corev1.ConditionTrue})
	if _, err := e.api.Registry().Client().UpdateStatus(context.Background(), changed); err != nil {
		t.Fatal(err)
	}
	a.report(t, running(changed))
	waitUntil(t, "pod old Running", isRunning("old"))
	if !hasCondition(e.pod("old").Status.Conditions, "example.com/gate") {
		t.Errorf("conditions %+v: the one written after the cached version is lost", e.pod("old").Status.Conditions)
	}

	done := e.cached("missing") // stored Running: cache that, then undo it
	cache.put(done)
	back := done.DeepCopy()
	back.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: done.Status.Conditions[len(done.Status.Conditions)-1:]}
	if _, err := e.api.Registry().Client().UpdateStatus(context.Background(), back); err != nil {
		t.Fatal(err)
	}
	e.startMonitor(cfg) // a new monitor has no memory of the report
	a.report(t, running(missing))
	waitUntil(t, "pod missing Running again", isRunning("missing"))
}
