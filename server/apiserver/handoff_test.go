package apiserver

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// handoffCheck records what the shared cache took from the registry in
// place of a decode, and every difference from the decode.
type handoffCheck struct {
	mu    sync.Mutex
	taken map[string]int // by key prefix, e.g. "/registry/core/pods/"
	diffs []string
}

func (h *handoffCheck) check(key string, handed, decoded api.Object) {
	h.mu.Lock()
	defer h.mu.Unlock()
	parts := strings.SplitN(key, "/", 5) // "", "registry", group, plural, rest
	h.taken[strings.Join(parts[:4], "/")+"/"]++
	if !reflect.DeepEqual(handed, decoded) {
		h.diffs = append(h.diffs, key+" (- decoded, + handed):\n"+diff.ObjectReflectDiff(decoded, handed))
	}
}

// withCheckedHandoff makes the test env's cache with every resource
// followed (a quiet one takes no offers) and every offer checked.
func withCheckedHandoff(t *testing.T, h *handoffCheck, made **informer.Cache) func(*APIConfig) {
	return func(cfg *APIConfig) {
		c := informer.New(cfg.Store, informer.Config{CheckHandoff: h.check,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		for _, res := range api.All() {
			c.Informer(res).AddHandler(informer.Handler{OnAdd: func(api.Object) {}})
		}
		ctx, cancel := context.WithCancel(context.Background())
		c.Start(ctx)
		t.Cleanup(func() { cancel(); c.Stop() })
		cfg.Cache, *made = c, c
	}
}

// TestHandoffEqualsDecodeEveryKind: for every built-in kind, what the
// cache takes from the registry after a create, an update, a status
// update and (pods) a binding equals what decoding the stored bytes gives (defaulted and
// server-set fields, managedFields, timestamps, type fields and
// resourceVersion included), and the cache does take it for the kinds
// api.StoredCopy can copy.
func TestHandoffEqualsDecodeEveryKind(t *testing.T) {
	h := &handoffCheck{taken: map[string]int{}}
	var cache *informer.Cache
	e := newTestEnv(t, withCheckedHandoff(t, h, &cache))
	for _, res := range api.All() {
		if !res.StorageVersion() {
			continue // written as its storage version, which has its own manifest
		}
		coll, name := collectionPath(res), "handoff-1"
		if n, ok := crudNames[res.Name]; ok {
			name = n
		}
		created := e.post(coll, manifest(t, manifestKey(res), name)).must(t, http.StatusCreated).obj(t)
		waitForCache(t, e, cache) // each write's event applied before the next write
		created["metadata"].(map[string]any)["labels"] = map[string]any{"updated": "yes"}
		updated := e.put(coll+"/"+name, created).must(t, http.StatusOK).obj(t)
		waitForCache(t, e, cache)
		if res.HasSubresource("status") {
			e.put(coll+"/"+name+"/status", updated).must(t, http.StatusOK)
			waitForCache(t, e, cache)
		}
		if res.HasSubresource("binding") { // the scheduler's cached binding
			e.post(coll+"/"+name+"/binding", map[string]any{"apiVersion": "v1", "kind": "Binding",
				"metadata": map[string]any{"name": name}, "target": map[string]any{"kind": "Node", "name": "n1"}}).
				must(t, http.StatusCreated)
		}
	}
	waitForCache(t, e, cache)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range h.diffs {
		t.Error(d)
	}
	for _, res := range api.All() {
		path := res.Prefix("")
		// At least one of the writes: a writer in the background (quota
		// usage) may replace an offer before its event comes.
		if _, ok := api.StoredCopy(res, res.New()); ok && res.StorageVersion() && h.taken[path] < 1 {
			t.Errorf("%s: the cache took nothing from the registry", path)
		}
	}
}

// waitForCache waits until the env's cache has applied every write.
func waitForCache(t *testing.T, e *testEnv, c *informer.Cache) {
	t.Helper()
	rev, err := e.store.CurrentRevision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitForRevision(ctx, rev); err != nil {
		t.Fatalf("cache at revision %d: %v", rev, err)
	}
}
