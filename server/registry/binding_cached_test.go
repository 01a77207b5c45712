package registry

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// TestBindOnCachedPod: a binding of a pod the cache holds at its stored
// revision is written (nodeName and PodScheduled=True, a new revision).
func TestBindOnCachedPod(t *testing.T) {
	ctx, r, _, cache := cachedRegistry(t)
	createCachedPod(t, ctx, r, cache, "p")
	if err := r.Bind(ctx, "default", binding("p", "n1"), false); err != nil {
		t.Fatal(err)
	}
	got := storedPod(t, ctx, r, "p")
	if got.Spec.NodeName != "n1" || len(got.Status.Conditions) != 1 ||
		got.Status.Conditions[0].Type != corev1.PodScheduled || got.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("stored pod: nodeName %q, conditions %+v; want n1 and PodScheduled=True", got.Spec.NodeName, got.Status.Conditions)
	}
}

// TestBindOverStaleCacheConflicts: a pod bound in the store, whether or
// not the cache has seen it yet, cannot be bound again: 409, and the
// stored pod keeps its node.
func TestBindOverStaleCacheConflicts(t *testing.T) {
	ctx, r, store, cache := cachedRegistry(t)
	for i := range 10 {
		name := fmt.Sprint("p-", i)
		createCachedPod(t, ctx, r, cache, name)
		kv, err := store.Get(ctx, podsResource.Key("default", name))
		if err != nil {
			t.Fatal(err)
		}
		pod := storedPod(t, ctx, r, name)
		pod.Spec.NodeName = "other"
		data, err := encodeStored(pod)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Update(ctx, kv.Key, data, kv.ModRevision); err != nil {
			t.Fatal(err)
		}
		if err := r.Bind(ctx, "default", binding(name, "n1"), false); !apierrors.IsConflict(err) {
			t.Fatalf("%s: binding a bound pod: got %v, want a conflict", name, err)
		}
		if got := storedPod(t, ctx, r, name).Spec.NodeName; got != "other" {
			t.Fatalf("%s: stored nodeName %q, want other", name, got)
		}
	}
}

func binding(pod, node string) *corev1.Binding {
	return &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: "default"},
		Target: corev1.ObjectReference{Kind: "Node", Name: node}}
}

// createCachedPod creates an unbound pod and waits until the cache holds it.
func createCachedPod(t *testing.T, ctx context.Context, r *Registry, cache interface {
	WaitForRevision(context.Context, int64) error
}, name string) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
	obj, err := r.Create(ctx, podsResource, "default", pod, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := ParseResourceVersion(obj.GetResourceVersion())
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.WaitForRevision(ctx, rev); err != nil {
		t.Fatal(err)
	}
}

func storedPod(t *testing.T, ctx context.Context, r *Registry, name string) *corev1.Pod {
	t.Helper()
	kv, err := r.store.Get(ctx, podsResource.Key("default", name))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := decodeStored(podsResource, kv)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*corev1.Pod)
}

// TestBindCopyLeavesCachedPodAlone: the cached binding path binds a copy of
// the cache's pod that shares most of it; what bindPod changes (node name,
// annotations, the PodScheduled condition in place) must not reach the
// cache's pod, which other readers hold.
func TestBindCopyLeavesCachedPodAlone(t *testing.T) {
	r := newTestRegistry(t)
	cached := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default",
		Annotations: map[string]string{"a": "1"}, ResourceVersion: "7"},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
			Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}}
	b := binding("p", "n1")
	b.Annotations = map[string]string{"b": "2"}
	next, err := r.bindPod(bindCopy(cached), b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := encodeStored(next); err != nil {
		t.Fatal(err)
	}
	bound := next.(*corev1.Pod)
	if bound.Spec.NodeName != "n1" || bound.Annotations["b"] != "2" || bound.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Fatalf("bound copy: nodeName %q, annotations %v, conditions %+v; want n1, b=2, PodScheduled=True",
			bound.Spec.NodeName, bound.Annotations, bound.Status.Conditions)
	}
	if cached.Spec.NodeName != "" || len(cached.Annotations) != 1 || cached.ResourceVersion != "7" ||
		cached.Status.Conditions[0].Status != corev1.ConditionFalse || cached.Kind != "" {
		t.Errorf("cached pod changed: nodeName %q, annotations %v, rv %q, kind %q, conditions %+v",
			cached.Spec.NodeName, cached.Annotations, cached.ResourceVersion, cached.Kind, cached.Status.Conditions)
	}
}

// TestBindGivesTheCacheTheDecodedPod: the pod a cached binding gives the
// shared cache uncopied (with annotations, and a PodScheduled time to the
// nanosecond) is what decoding the stored pod gives, and is taken: it
// shares its containers with the unbound pod the cache held.
func TestBindGivesTheCacheTheDecodedPod(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var checked int
	cache := informer.New(store, informer.Config{CheckHandoff: func(key string, handed, decoded api.Object) {
		mu.Lock()
		defer mu.Unlock()
		checked++
		if !reflect.DeepEqual(handed, decoded) {
			t.Errorf("%s: the cache took %+v, the decode gives %+v", key, handed, decoded)
		}
	}})
	cache.Informer(podsResource).AddHandler(informer.Handler{OnAdd: func(api.Object) {}})
	cache.Start(ctx)
	t.Cleanup(func() { cancel(); cache.Stop(); store.Close() })
	r, err := New(ctx, Config{Store: store, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	createCachedPod(t, ctx, r, cache, "p")
	inf, _ := cache.Serves(podsResource)
	unbound, _ := inf.Get("default", "p")
	before := cache.Handoffs().Taken
	b := binding("p", "n1")
	b.Annotations = map[string]string{"b": "2"}
	if err := r.Bind(ctx, "default", b, false); err != nil {
		t.Fatal(err)
	}
	kv, err := store.Get(ctx, podsResource.Key("default", "p"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.WaitForRevision(ctx, kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	if got := cache.Handoffs().Taken - before; got != 1 {
		t.Fatalf("the cache took %d objects for the binding, want 1", got)
	}
	bound, _ := inf.Get("default", "p")
	if &bound.(*corev1.Pod).Spec.Containers[0] != &unbound.(*corev1.Pod).Spec.Containers[0] {
		t.Error("the cache took a copy of the bound pod, not the pod itself")
	}
	mu.Lock()
	defer mu.Unlock()
	if checked == 0 {
		t.Fatal("no hand-over checked")
	}
}
