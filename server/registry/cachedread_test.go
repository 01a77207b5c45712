package registry

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// TestReadsCopyTheCachedVersion: a read whose stored version the cache
// holds gives a copy equal to decoding the stored value, which the caller
// may change freely; any other version is decoded.
func TestReadsCopyTheCachedVersion(t *testing.T) {
	ctx, r, store, cache := cachedRegistry(t)
	cms := api.MustLookup("", "v1", "configmaps")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "conf", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	if _, err := r.Create(ctx, cms, "default", cm, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	kv, err := store.Get(ctx, cms.Key("default", "conf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.WaitForRevision(ctx, kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	got := r.cachedCopy(cms, "default", "conf", kv.ModRevision)
	want, err := decodeStored(cms, kv)
	if got == nil || err != nil || !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("cached copy %+v, want the decoded %+v (%v)", got, want, err)
	}
	got.(*corev1.ConfigMap).Data["k"] = "changed"
	inf, _ := cache.Serves(cms)
	if held, _ := inf.Get("default", "conf"); held.(*corev1.ConfigMap).Data["k"] != "v" {
		t.Error("changing what a read returned changed the cache")
	}
	for _, rev := range []int64{kv.ModRevision - 1, kv.ModRevision + 1} {
		if r.cachedCopy(cms, "default", "conf", rev) != nil {
			t.Errorf("revision %d: got the cached object (rv %s)", rev, strconv.FormatInt(kv.ModRevision, 10))
		}
	}
}

// cachedRegistry is a registry on a fresh SQLite store with a shared cache
// that serves every built-in kind, stopped when the test ends.
func cachedRegistry(t *testing.T) (context.Context, *Registry, *datastore.SQLite, *informer.Cache) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	cache := informer.New(store, informer.Config{})
	for _, res := range api.All() {
		cache.Informer(res)
	}
	cache.Start(ctx)
	t.Cleanup(func() { cancel(); cache.Stop(); store.Close() })
	r, err := New(ctx, Config{Store: store, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, r, store, cache
}
