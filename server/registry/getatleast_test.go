package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// TestGetAtLeastAnswersFromCacheOnlyWhenItCan: an object the cache holds
// at the asked revision is read with no datastore read; a missing one gets
// the datastore's NotFound; one written behind a held cache is still
// found, from the datastore.
func TestGetAtLeastAnswersFromCacheOnlyWhenItCan(t *testing.T) {
	ctx, r, g, _ := gatedRegistry(t, false)
	cms := api.MustLookup("", "v1", "configmaps")
	create := func(name string) int64 {
		t.Helper()
		obj, err := r.Create(ctx, cms, "default", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}, WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rev, err := ParseResourceVersion(obj.GetResourceVersion())
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	rev := create("a")
	before := g.gets.Load()
	if obj, err := r.GetAtLeast(ctx, cms, "default", "a", rev); err != nil || obj.GetName() != "a" {
		t.Fatalf("GetAtLeast of a cached object: %v, %v", obj, err)
	}
	if n := g.gets.Load() - before; n != 0 {
		t.Errorf("GetAtLeast of an object the cache holds: %d datastore reads, want 0", n)
	}
	if _, err := r.GetAtLeast(ctx, cms, "default", "missing", rev); !apierrors.IsNotFound(err) {
		t.Errorf("GetAtLeast of a missing object: %v, want NotFound", err)
	}
	g.freeze(t)
	held := create("b")
	if obj, err := r.GetAtLeast(ctx, cms, "default", "b", held); err != nil || obj.GetName() != "b" {
		t.Fatalf("GetAtLeast behind a held cache: %v, %v; want b from the datastore", obj, err)
	}
}
