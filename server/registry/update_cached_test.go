package registry

import (
	"bytes"
	"context"
	"encoding/base64"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/encryption"
)

// gatedStore counts the Gets it serves and holds its watches' events
// while gate is locked, so that a cache fed by it can be kept stale.
type gatedStore struct {
	datastore.Store
	gets atomic.Int64
	gate sync.RWMutex
}

func (g *gatedStore) Get(ctx context.Context, key string) (*datastore.KeyValue, error) {
	g.gets.Add(1)
	return g.Store.Get(ctx, key)
}

func (g *gatedStore) Watch(ctx context.Context, prefix string, after int64) (<-chan []datastore.Event, error) {
	in, err := g.Store.Watch(ctx, prefix, after)
	return g.forward(ctx, in), err
}

func (g *gatedStore) WatchProgress(ctx context.Context, prefix string, after int64, req <-chan struct{}) (<-chan []datastore.Event, error) {
	in, err := g.Store.WatchProgress(ctx, prefix, after, req)
	return g.forward(ctx, in), err
}

func (g *gatedStore) forward(ctx context.Context, in <-chan []datastore.Event) <-chan []datastore.Event {
	if in == nil {
		return nil
	}
	out := make(chan []datastore.Event)
	go func() {
		defer close(out)
		for batch := range in {
			g.waitOpen()
			select {
			case out <- batch:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// waitOpen returns once the gate is not held by freeze.
func (g *gatedStore) waitOpen() {
	g.gate.RLock()
	defer g.gate.RUnlock()
}

// freeze holds the cache's feed until the test ends.
func (g *gatedStore) freeze(t *testing.T) {
	g.gate.Lock()
	t.Cleanup(g.gate.Unlock)
}

// gatedRegistry is cachedRegistry over a gatedStore; sealed puts the
// Secrets' encryption between the registry (and cache) and it.
func gatedRegistry(t *testing.T, sealed bool) (context.Context, *Registry, *gatedStore, *informer.Cache) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sq, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	g := &gatedStore{Store: sq}
	var store datastore.Store = g
	if sealed {
		keys, _, err := encryption.OpenKeyring(filepath.Join(t.TempDir(), "keys.json"), true)
		if err != nil {
			t.Fatal(err)
		}
		store = encryption.NewStore(g, keys, nil)
	}
	cache := informer.New(store, informer.Config{})
	for _, res := range api.All() {
		cache.Informer(res)
	}
	cache.Start(ctx)
	t.Cleanup(func() { cancel(); cache.Stop(); sq.Close() })
	r, err := New(ctx, Config{Store: store, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, r, g, cache
}

// setMessage writes pod p's status message, unconditionally, and waits
// until the cache holds the result.
func setMessage(t *testing.T, ctx context.Context, r *Registry, msg string, dryRun bool) *corev1.Pod {
	t.Helper()
	out, err := r.Mutate(ctx, Mutation{Resource: podsResource, Namespace: "default", Name: "p", Subresource: "status",
		DryRun: dryRun, Mutate: func(cur api.Object) (api.Object, error) {
			cur.(*corev1.Pod).Status.Message = msg
			return cur, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	waitCached(t, ctx, r, out)
	return out.(*corev1.Pod)
}

func waitCached(t *testing.T, ctx context.Context, r *Registry, obj api.Object) {
	t.Helper()
	rev, err := ParseResourceVersion(obj.GetResourceVersion())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cache.WaitForRevision(ctx, rev); err != nil {
		t.Fatal(err)
	}
}

// TestUpdateFromCacheReadsNoStore: a status write over an object this
// registry last wrote, which the cache holds at that revision, is written
// with no datastore read; one that changes nothing, and a dry run, read
// the store as before and write nothing.
func TestUpdateFromCacheReadsNoStore(t *testing.T) {
	ctx, r, g, cache := gatedRegistry(t, false)
	createCachedPod(t, ctx, r, cache, "p")
	first := setMessage(t, ctx, r, "one", false)
	g.gets.Store(0)
	second := setMessage(t, ctx, r, "two", false)
	if n := g.gets.Load(); n != 0 {
		t.Errorf("a status write from the cache read the store %d times, want 0", n)
	}
	if got := storedPod(t, ctx, r, "p"); second.ResourceVersion == first.ResourceVersion || got.Status.Message != "two" {
		t.Fatalf("status write: resourceVersion %s after %s, stored message %q; want a new revision, two",
			second.ResourceVersion, first.ResourceVersion, got.Status.Message)
	}
	g.gets.Store(0)
	same := setMessage(t, ctx, r, "two", false)
	if n := g.gets.Load(); n != 1 || same.ResourceVersion != second.ResourceVersion {
		t.Errorf("a write changing nothing: %d store reads, resourceVersion %s; want 1, %s (unwritten)",
			n, same.ResourceVersion, second.ResourceVersion)
	}
	g.gets.Store(0)
	dry := setMessage(t, ctx, r, "dry", true)
	if n := g.gets.Load(); n != 1 || dry.Status.Message != "dry" {
		t.Errorf("a dry run: %d store reads, message %q; want 1, dry", n, dry.Status.Message)
	}
	if got := storedPod(t, ctx, r, "p"); got.Status.Message != "two" || got.ResourceVersion != second.ResourceVersion {
		t.Errorf("after a no-op and a dry run: stored message %q at %s, want two at %s",
			got.Status.Message, got.ResourceVersion, second.ResourceVersion)
	}
}

// TestSecretUpdateFromCacheStaysSealed: Secrets are stored encrypted; an
// update from the cache's (decrypted) Secret reads nothing from the store,
// is written through the encryption like any other, and reads back.
func TestSecretUpdateFromCacheStaysSealed(t *testing.T) {
	ctx, r, g, _ := gatedRegistry(t, true)
	secrets := api.MustLookup("", "v1", "secrets")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default"},
		Data: map[string][]byte{"k": []byte("plain-one")}}
	if _, err := r.Create(ctx, secrets, "default", secret, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	setData := func(v string) api.Object {
		out, err := r.Mutate(ctx, Mutation{Resource: secrets, Namespace: "default", Name: "s",
			Mutate: func(cur api.Object) (api.Object, error) {
				cur.(*corev1.Secret).Data["k"] = []byte(v)
				return cur, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		waitCached(t, ctx, r, out)
		return out
	}
	setData("plain-two")
	g.gets.Store(0)
	setData("plain-three")
	if n := g.gets.Load(); n != 0 {
		t.Errorf("a Secret update from the cache read the store %d times, want 0", n)
	}
	raw, err := g.Store.Get(ctx, secrets.Key("default", "s"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw.Value, []byte(base64.StdEncoding.EncodeToString([]byte("plain-three")))) || bytes.Contains(raw.Value, []byte("plain")) {
		t.Errorf("the stored Secret holds its data in clear: %q", raw.Value)
	}
	got, err := r.Get(ctx, secrets, "default", "s")
	if err != nil {
		t.Fatal(err)
	}
	if v := string(got.(*corev1.Secret).Data["k"]); v != "plain-three" {
		t.Errorf("Secret read back: k=%q, want plain-three", v)
	}
}
