package listwatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/storetest"
)

// sink records what it is told, in order.
type sink struct {
	mu  sync.Mutex
	log []string
}

func (s *sink) Upsert(key string, kv *datastore.KeyValue) {
	s.add(fmt.Sprintf("upsert %s=%s", key, kv.Value))
}
func (s *sink) Remove(key string) { s.add("remove " + key) }
func (s *sink) add(line string)   { s.mu.Lock(); s.log = append(s.log, line); s.mu.Unlock() }
func (s *sink) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fastBackoff keeps retries quick in tests.
var fastBackoff = Backoff{Min: time.Millisecond, Max: 20 * time.Millisecond}

func openStore(t testing.TB) *datastore.SQLite {
	t.Helper()
	store, err := datastore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "state.db"),
		datastore.SQLiteConfig{Logger: quiet, CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func mustPut(t testing.TB, store datastore.Store, key, val string) int64 {
	t.Helper()
	ctx := context.Background()
	kv, err := store.Get(ctx, key)
	var rev int64
	switch {
	case errors.Is(err, datastore.ErrNotFound):
		rev, err = store.Create(ctx, key, []byte(val))
	case err == nil:
		rev, err = store.Update(ctx, key, []byte(val), kv.ModRevision)
	}
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func mustDelete(t testing.TB, store datastore.Store, key string) int64 {
	t.Helper()
	rev, _, err := store.Delete(context.Background(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// waitLines waits until s has recorded exactly want.
func waitLines(t testing.TB, s *sink, want []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(s.lines(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("sink got %q, want %q", s.lines(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestListThenWatchInOrder(t *testing.T) {
	store := openStore(t)
	mustPut(t, store, "/p/a", "1")
	mustPut(t, store, "/q/outside", "x")
	s := &sink{}
	m := NewMirror("/p/", s)
	f := New(store, "/p/", m, Config{Logger: quiet})
	if err := f.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Synced():
	default:
		t.Fatal("Synced after Start: still open, want closed")
	}
	mustPut(t, store, "/p/b", "2")
	mustPut(t, store, "/p/a", "3")
	mustDelete(t, store, "/p/b")
	waitLines(t, s, []string{"upsert a=1", "upsert b=2", "upsert a=3", "remove b"})
	f.Stop()
	if m.Len() != 1 {
		t.Fatalf("keys known: got %d, want 1", m.Len())
	}
}

// Watches that fail to open, and watches cut off mid-stream, are resumed
// after the last revision handed over: nothing is lost or repeated.
func TestFollowerSurvivesWatchFaults(t *testing.T) {
	store := storetest.NewFaults(openStore(t))
	s := &sink{}
	f := New(store, "/p/", NewMirror("/p/", s), Config{Logger: quiet, Backoff: fastBackoff})
	store.FailWatches("/p/", 3, errors.New("injected watch failure"))
	if err := f.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	var want []string
	for i := range 5 {
		mustPut(t, store, fmt.Sprintf("/p/k%d", i), "v")
		want = append(want, fmt.Sprintf("upsert k%d=v", i))
		waitLines(t, s, want)
		// Arm the failure before the cut: armed after, the follower could
		// reopen in between and never meet it.
		store.FailWatches("/p/", 1, errors.New("injected watch failure"))
		store.CutWatches("/p/")
	}
	mustPut(t, store, "/p/last", "v")
	waitLines(t, s, append(want, "upsert last=v"))
	if store.Pending("/p/") != 0 {
		t.Fatalf("injected failures left: %d, want every one met", store.Pending("/p/"))
	}
	if n := store.Opened("/p/"); n < 5 {
		t.Fatalf("watches opened: got %d, want one per cut-off", n)
	}
}

// A watch that fell behind compaction lists again and hands the list over
// as a replacement: what was deleted meanwhile is removed, what changed is
// upserted; nothing is skipped by jumping to the current revision.
func TestFollowerRelistsAfterCompaction(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	mustPut(t, store, "/p/a", "1")
	mustPut(t, store, "/p/b", "1")
	s := &sink{}
	f := New(store, "/p/", NewMirror("/p/", s), Config{Logger: quiet, Backoff: fastBackoff})
	if err := f.Replace(ctx); err != nil {
		t.Fatal(err)
	}
	mustDelete(t, store, "/p/a")
	mustPut(t, store, "/p/b", "2")
	rev := mustPut(t, store, "/p/c", "1")
	if err := store.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { f.Follow(fctx); close(done) }()
	waitLines(t, s, []string{"upsert a=1", "upsert b=1", "upsert b=2", "upsert c=1", "remove a"})
	mustPut(t, store, "/p/d", "1")
	waitLines(t, s, []string{"upsert a=1", "upsert b=1", "upsert b=2", "upsert c=1", "remove a", "upsert d=1"})
	cancel()
	<-done
}

// Go retries a failing first list, and Stop waits for the goroutine.
func TestGoListsInTheBackgroundAndStopWaits(t *testing.T) {
	store := openStore(t)
	mustPut(t, store, "/p/a", "1")
	h := &failingHandler{fails: 2, sink: &sink{}}
	f := New(store, "/p/", h, Config{Logger: quiet, Backoff: fastBackoff})
	f.Go(context.Background())
	select {
	case <-f.Synced():
	case <-time.After(10 * time.Second):
		t.Fatal("not synced after 10s")
	}
	if h.calls != 3 {
		t.Fatalf("OnReplace calls: got %d, want 2 failures and a success", h.calls)
	}
	f.Stop()
	mustPut(t, store, "/p/b", "2")
	time.Sleep(20 * time.Millisecond)
	if got := h.sink.lines(); !slices.Equal(got, []string{"upsert a=1"}) {
		t.Fatalf("after Stop: got %q, want nothing handed over after it", got)
	}
}

// failingHandler fails its first lists.
type failingHandler struct {
	fails, calls int
	sink         *sink
}

func (h *failingHandler) OnReplace(ctx context.Context, l *List) error {
	h.calls++
	if h.calls <= h.fails {
		return errors.New("injected handler failure")
	}
	return NewMirror("/p/", h.sink).OnReplace(ctx, l)
}

func (h *failingHandler) OnEvent(_ context.Context, ev *datastore.Event) {
	h.sink.Upsert(ev.KV.Key, ev.KV)
}
