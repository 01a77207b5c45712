package registry

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// TestUpdateOverStaleCacheAnswersAsBefore: with the cache held at an older
// revision than the store's, every update is answered as from the stored
// object: a resourceVersion the cache holds but the store has passed gets
// 409, the store's current one succeeds, an unconditional write keeps
// what the cache has not seen; the cache's object is left alone.
func TestUpdateOverStaleCacheAnswersAsBefore(t *testing.T) {
	ctx, r, g, cache := gatedRegistry(t, false)
	createCachedPod(t, ctx, r, cache, "p")
	old := storedPod(t, ctx, r, "p")
	old.Labels = map[string]string{"v": "1"}
	first, err := r.Update(ctx, podsResource, "default", "p", "", old, false)
	if err != nil {
		t.Fatal(err)
	}
	waitCached(t, ctx, r, first)
	g.freeze(t)
	direct := storedPod(t, ctx, r, "p") // written behind the registry's and the cache's back
	direct.Labels["direct"] = "yes"
	writeDirect(t, r, direct)
	inf, _ := cache.Serves(podsResource)
	held, _ := inf.Get("default", "p")
	before := held.DeepCopyObject()

	stale := first.DeepCopyObject().(*corev1.Pod)
	stale.Labels["v"] = "2"
	if _, err := r.Update(ctx, podsResource, "default", "p", "", stale, false); !apierrors.IsConflict(err) {
		t.Fatalf("update at the cache's (stale) resourceVersion: got %v, want a conflict", err)
	}
	fresh := storedPod(t, ctx, r, "p")
	fresh.Labels["v"] = "3"
	if _, err := r.Update(ctx, podsResource, "default", "p", "", fresh, false); err != nil {
		t.Fatalf("update at the store's resourceVersion, newer than the cache's: %v", err)
	}
	setPhaseNoWait(t, r, corev1.PodRunning)
	got := storedPod(t, ctx, r, "p")
	if got.Labels["direct"] != "yes" || got.Labels["v"] != "3" || got.Status.Phase != corev1.PodRunning {
		t.Errorf("stored pod: labels %v, phase %s; want direct=yes, v=3, Running", got.Labels, got.Status.Phase)
	}
	if now, _ := inf.Get("default", "p"); now != held || !equality.Semantic.DeepEqual(before, held) {
		t.Errorf("the cache's pod changed while it was stale: %+v, want %+v", held, before)
	}
}

// writeDirect writes pod over its stored revision straight to the store.
func writeDirect(t *testing.T, r *Registry, pod *corev1.Pod) {
	t.Helper()
	rev, err := ParseResourceVersion(pod.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	data, err := encodeStored(pod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.store.Update(t.Context(), podsResource.Key("default", pod.Name), data, rev); err != nil {
		t.Fatal(err)
	}
}

// setPhaseNoWait is setPhase for a cache that is held.
func setPhaseNoWait(t *testing.T, r *Registry, phase corev1.PodPhase) {
	t.Helper()
	_, err := r.Mutate(t.Context(), Mutation{Resource: podsResource, Namespace: "default", Name: "p", Subresource: "status",
		Mutate: func(cur api.Object) (api.Object, error) {
			cur.(*corev1.Pod).Status.Phase = phase
			return cur, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCustomObjectUpdatesThroughCache: a custom kind's objects (unstructured)
// update as before with a cache in place: a spec write bumps the
// generation and keeps the status, a stale resourceVersion gets 409.
func TestCustomObjectUpdatesThroughCache(t *testing.T) {
	ctx, r, _, _ := gatedRegistry(t, false)
	res := createWidgetCRD(t, r)
	obj, _ := decodeWidget(t, res, widgetBody)
	created, err := r.Create(ctx, res, "default", obj, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := decodeWidget(t, res, `{"metadata":{"name":"w1","namespace":"default"},"spec":{"size":9},"status":{"phase":"Ready"}}`)
	w, err := r.Update(ctx, res, "default", "w1", "status", st, false)
	if err != nil {
		t.Fatal(err)
	}
	waitCached(t, ctx, r, w)
	for size := 4; size <= 5; size++ {
		spec, _ := decodeWidget(t, res, fmt.Sprintf(`{"metadata":{"name":"w1","namespace":"default"},"spec":{"size":%d}}`, size))
		if w, err = r.Update(ctx, res, "default", "w1", "", spec, false); err != nil {
			t.Fatal(err)
		}
		waitCached(t, ctx, r, w)
	}
	if w.GetGeneration() != 3 || nested(t, w, "status", "phase") != `"Ready"` || nested(t, w, "spec", "size") != "5" {
		t.Fatalf("after two spec writes: generation %d, %s %s; want 3, size 5, Ready", w.GetGeneration(), nested(t, w, "spec"), nested(t, w, "status"))
	}
	stale, _ := decodeWidget(t, res, `{"metadata":{"name":"w1","namespace":"default","resourceVersion":"`+created.GetResourceVersion()+`"},"spec":{"size":6}}`)
	if _, err := r.Update(ctx, res, "default", "w1", "", stale, false); !apierrors.IsConflict(err) {
		t.Fatalf("custom object at a stale resourceVersion: got %v, want a conflict", err)
	}
}

// TestUpdateAnswerSharesNothingWithCache: the answer of an update made over
// the cache's object is the caller's to change, as a Get's is: no map,
// slice or pointer of it is the cache's (managedFields the request left
// out, the deletion timestamp are carried over from the stored object).
func TestUpdateAnswerSharesNothingWithCache(t *testing.T) {
	ctx, r, g, _ := gatedRegistry(t, false)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Finalizers: []string{"example.com/keep"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{}}}`)}}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
	if _, err := r.Create(ctx, podsResource, "default", pod, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	deleted, err := r.Delete(ctx, podsResource, "default", "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitCached(t, ctx, r, deleted)
	first := setMessage(t, ctx, r, "one", false)
	inf, _ := r.cache.Serves(podsResource)
	held, _ := inf.Get("default", "p")
	if held.GetResourceVersion() != first.ResourceVersion || len(held.GetManagedFields()) == 0 || held.GetDeletionTimestamp() == nil {
		t.Fatalf("cached pod at %s with managedFields %v, deletionTimestamp %v; want %s, both set",
			held.GetResourceVersion(), held.GetManagedFields(), held.GetDeletionTimestamp(), first.ResourceVersion)
	}
	next := first.DeepCopy()
	next.ManagedFields, next.Labels = nil, map[string]string{"v": "2"}
	g.gets.Store(0)
	out, err := r.Update(ctx, podsResource, "default", "p", "", next, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := g.gets.Load(); n != 0 {
		t.Fatalf("the update read the store %d times, want 0 (from the cache)", n)
	}
	if len(out.GetManagedFields()) == 0 {
		t.Fatal("the answer lost the stored managedFields")
	}
	if path := sharedPath(out, held); path != "" {
		t.Errorf("the answer shares %s with the cache's pod", path)
	}
}

// sharedPath is the path of a map, slice or pointer of a that b holds too;
// "" when none.
func sharedPath(a, b any) (found string) {
	refs := map[uintptr]bool{}
	walkRefs(reflect.ValueOf(b), "", func(p uintptr, _ string) bool { refs[p] = true; return false })
	walkRefs(reflect.ValueOf(a), "", func(p uintptr, path string) bool {
		if refs[p] && found == "" {
			found = path
		}
		return found != ""
	})
	return found
}
