package registry

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// TestCreateRightAfterNamespaceDeleteIsRefused: a create's namespace check
// reads the shared cache only when the cache is as fresh as the datastore,
// so a create sent right after its namespace was deleted is refused every
// time, however far behind the cache is; with the cache caught up, the
// check is answered from it.
func TestCreateRightAfterNamespaceDeleteIsRefused(t *testing.T) {
	ctx, r, store, cache := cachedRegistry(t)
	cms := api.MustLookup("", "v1", "configmaps")
	for i := range 40 {
		name := fmt.Sprintf("ns-%d", i)
		if _, err := r.Create(ctx, namespacesResource, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		cur, _ := store.CurrentRevision(ctx)
		if err := cache.WaitForRevision(ctx, cur); err != nil {
			t.Fatal(err)
		}
		if ns, ok := r.cachedNamespace(name); !ok || ns.Name != name {
			t.Fatalf("namespace %s with the cache caught up: got %v, %v from the cache", name, ns, ok)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: name}}
		if _, err := r.Create(ctx, cms, name, cm, WriteOptions{}); err != nil {
			t.Fatalf("create in open namespace %s: %v", name, err)
		}
		if _, err := r.Delete(ctx, namespacesResource, "", name, nil); err != nil {
			t.Fatal(err)
		}
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: name}}
		if _, err := r.Create(ctx, cms, name, cm, WriteOptions{}); !apierrors.IsForbidden(err) && !apierrors.IsNotFound(err) {
			t.Fatalf("create right after deleting namespace %s: got %v, want 403 (being terminated) or 404", name, err)
		}
	}
	if _, ok := r.cachedNamespace("never-made"); ok {
		t.Error("a namespace nobody made: the cache answered; want the datastore's NotFound")
	}
}

// TestNamespaceCheckFollowsNamespaceWritesOnly: with the cache held back
// on everything written after its namespace, a create's namespace check
// is still answered from the cache (no datastore read); once the
// namespace itself is deleted behind the held cache, the check reads the
// datastore and the create is refused.
func TestNamespaceCheckFollowsNamespaceWritesOnly(t *testing.T) {
	ctx, r, g, _ := gatedRegistry(t, false)
	ns, err := r.Create(ctx, namespacesResource, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "held"}}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitCached(t, ctx, r, ns)
	g.freeze(t)
	cms := api.MustLookup("", "v1", "configmaps")
	for i := range 3 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i), Namespace: "held"}}
		before := g.gets.Load()
		if _, err := r.Create(ctx, cms, "held", cm, WriteOptions{}); err != nil {
			t.Fatalf("create %d behind a held cache: %v", i, err)
		}
		if n := g.gets.Load() - before; n != 0 {
			t.Errorf("create %d behind a cache current on namespaces: %d datastore reads, want 0", i, n)
		}
	}
	if _, err := r.Delete(ctx, namespacesResource, "", "held", nil); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late", Namespace: "held"}}
	if _, err := r.Create(ctx, cms, "held", cm, WriteOptions{}); !apierrors.IsForbidden(err) && !apierrors.IsNotFound(err) {
		t.Fatalf("create after its namespace was deleted behind a held cache: got %v, want 403 or 404", err)
	}
}
