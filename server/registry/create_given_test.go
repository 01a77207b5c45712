package registry

import (
	"context"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// TestCreateNewGivesTheCacheTheDecodedPod: a pod made for CreateNew (with
// values a JSON round trip changes: empty slices and maps, a creation
// time to the nanosecond) is handed to the shared cache uncopied, as what
// decoding the stored pod gives, and the caller is answered with a
// shallow copy carrying the resourceVersion.
func TestCreateNewGivesTheCacheTheDecodedPod(t *testing.T) {
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
	createCachedPod(t, ctx, r, cache, "first") // the informer is synced and followed
	build := func() api.Object {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-", Namespace: "default",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{}, Finalizers: []string{}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox", Args: []string{}}},
				Tolerations: []corev1.Toleration{}}}
	}
	before := cache.Handoffs().Taken
	out, err := r.Client().CreateNew(ctx, build)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := ParseResourceVersion(out.GetResourceVersion())
	if err != nil || rev == 0 {
		t.Fatalf("answered with resourceVersion %q (%v)", out.GetResourceVersion(), err)
	}
	if err := cache.WaitForRevision(ctx, rev); err != nil {
		t.Fatal(err)
	}
	if got := cache.Handoffs().Taken - before; got != 1 {
		t.Fatalf("the cache took %d objects for the create, want 1", got)
	}
	inf, _ := cache.Serves(podsResource)
	obj, ok := inf.Get("default", out.GetName())
	if !ok {
		t.Fatalf("the cache lacks %s", out.GetName())
	}
	cached, answered := obj.(*corev1.Pod), out.(*corev1.Pod)
	if cached == answered {
		t.Fatal("the caller was answered with the cache's own pod")
	}
	if &cached.Spec.Containers[0] != &answered.Spec.Containers[0] {
		t.Error("the cache took a copy of the created pod, not the pod itself")
	}
	if cached.ResourceVersion != answered.ResourceVersion {
		t.Errorf("cached at resourceVersion %s, answered with %s", cached.ResourceVersion, answered.ResourceVersion)
	}
	if !reflect.DeepEqual(cached, answered) {
		t.Errorf("answered with %+v, the cache holds %+v", answered, cached)
	}
	if want := storedPod(t, ctx, r, out.GetName()); !reflect.DeepEqual(cached, want) {
		t.Errorf("the cache holds %+v, the store %+v", cached, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if checked == 0 {
		t.Fatal("no hand-over checked")
	}
}

// TestCreateKeepsTheCallersObjectOffered: Create (a request's object,
// which the caller may go on using) still offers a copy.
func TestCreateKeepsTheCallersObjectOffered(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	cache := informer.New(store, informer.Config{})
	cache.Informer(podsResource).AddHandler(informer.Handler{OnAdd: func(api.Object) {}})
	cache.Start(ctx)
	t.Cleanup(func() { cancel(); cache.Stop(); store.Close() })
	r, err := New(ctx, Config{Store: store, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	createCachedPod(t, ctx, r, cache, "first")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "second", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
	out, err := r.Create(ctx, podsResource, "default", pod, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out != api.Object(pod) {
		t.Fatal("Create answered with another object than the one it was given")
	}
	rev, _ := ParseResourceVersion(out.GetResourceVersion())
	if err := cache.WaitForRevision(ctx, rev); err != nil {
		t.Fatal(err)
	}
	inf, _ := cache.Serves(podsResource)
	obj, _ := inf.Get("default", "second")
	if cached := obj.(*corev1.Pod); &cached.Spec.Containers[0] == &pod.Spec.Containers[0] {
		t.Error("the cache shares the caller's pod")
	}
}
