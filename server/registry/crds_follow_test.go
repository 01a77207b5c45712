package registry

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// TestCRDFollowedAcrossServers: two registries on one datastore, each with
// its own cache, as two servers on etcd: a CRD created through one is
// served by the other, and its deletion stops it there too.
func TestCRDFollowedAcrossServers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	var regs []*Registry
	for i := 0; i < 2; i++ {
		cache := informer.New(store, informer.Config{})
		for _, res := range api.All() {
			cache.Informer(res)
		}
		cache.Start(ctx)
		t.Cleanup(cache.Stop)
		r, err := New(ctx, Config{Store: store, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		regs = append(regs, r)
	}
	t.Cleanup(func() { cancel(); store.Close() })
	createWidgetCRD(t, regs[0])
	waitServed(t, regs[1], true)
	if _, err := regs[0].Delete(ctx, crdResource, "", "widgets.demo.bramble.dev", nil); err != nil {
		t.Fatal(err)
	}
	waitServed(t, regs[1], false)
}

// waitServed waits (up to 10 s) until r serves widgets, or no longer does.
func waitServed(t *testing.T, r *Registry, want bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, ok := r.Kinds().Lookup("demo.bramble.dev", "v1beta1", "widgets"); ok == want {
			return
		}
	}
	t.Fatalf("the other registry serving widgets: got %v, want %v", !want, want)
}
