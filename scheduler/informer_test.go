package scheduler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// recorder is an eventHandler that keeps the latest resourceVersion of
// every object, and can be made slow.
type recorder struct {
	mu    sync.Mutex
	objs  map[string]string // name -> resourceVersion
	delay time.Duration
}

func (r *recorder) upsert(obj api.Object) {
	time.Sleep(r.delay)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.objs[obj.GetNamespace()+"/"+obj.GetName()] = obj.GetResourceVersion()
}

func (r *recorder) remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.objs, name)
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.objs))
}

// storedPods lists the pods in the store as the recorder names them.
func storedPods(t testing.TB, store datastore.Store) []string {
	t.Helper()
	res, err := store.List(context.Background(), podsResource.Prefix(""), datastore.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, kv := range res.Items {
		obj, _, err := api.DecodeJSON(podsResource, kv.Value, false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, obj.GetNamespace()+"/"+obj.GetName())
	}
	slices.Sort(out)
	return out
}

// countingStore counts the watches opened on it.
type countingStore struct {
	datastore.Store
	mu      sync.Mutex
	watches int
}

func (c *countingStore) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan []datastore.Event, error) {
	c.mu.Lock()
	c.watches++
	c.mu.Unlock()
	return c.Store.Watch(ctx, prefix, afterRev)
}

func (c *countingStore) watchCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watches
}

// runReflector runs r in the background; the returned func stops it.
func runReflector(r *reflector) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestReflectorRelistsAfterCompaction(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{CompactInterval: -1})
	for i := range 5 {
		putObject(t, store, makePod("default", fmt.Sprint("p", i)))
	}
	rec := &recorder{objs: map[string]string{}}
	r := newReflector(store, podsResource, quietLogger(), rec)
	if err := r.list(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(rec.names()); got != 5 {
		t.Fatalf("after list: got %d pods, want 5", got)
	}
	// While nobody watches, pods come and go and the history is compacted.
	store.Delete(context.Background(), podsResource.Key("default", "p0"), 0)
	putObject(t, store, makePod("default", "p1", podLabels("changed", "yes")))
	putObject(t, store, makePod("other", "new"))
	rev, _ := store.CurrentRevision(context.Background())
	if err := store.Compact(context.Background(), rev); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Watch(context.Background(), podsResource.Prefix(""), r.Revision()); !errors.Is(err, datastore.ErrCompacted) {
		t.Fatalf("watch from the listed revision: got %v, want ErrCompacted (the test needs a relist)", err)
	}
	stop := runReflector(r)
	want := storedPods(t, store)
	waitFor(t, func() bool { return slices.Equal(rec.names(), want) })
	stop()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	p1Rev, _ := r.ModRevision("default/p1")
	if got, want := rec.objs["default/p1"], fmt.Sprint(p1Rev); got != want {
		t.Errorf("p1 resourceVersion: got %s, want its mod revision %s", got, want)
	}
}

func TestReflectorResumesWhenCutOff(t *testing.T) {
	store := &countingStore{Store: openStore(t, datastore.SQLiteConfig{WatchBuffer: 1, CompactInterval: -1})}
	rec := &recorder{objs: map[string]string{}, delay: 2 * time.Millisecond}
	r := newReflector(store, podsResource, quietLogger(), rec)
	if err := r.list(context.Background()); err != nil {
		t.Fatal(err)
	}
	stop := runReflector(r)
	// Writes far outpace the slow handler: the store cuts the watch off,
	// and the reflector must pick up where it stopped.
	for i := range 200 {
		putObject(t, store, makePod("default", fmt.Sprint("p", i)))
		if i%3 == 0 {
			store.Delete(context.Background(), podsResource.Key("default", fmt.Sprint("p", i/2)), 0)
		}
	}
	want := storedPods(t, store)
	waitFor(t, func() bool { return slices.Equal(rec.names(), want) })
	stop()
	if n := store.watchCount(); n < 2 {
		t.Errorf("got %d watches, want the first cut off and resumed", n)
	}
}
