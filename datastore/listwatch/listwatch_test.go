package listwatch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
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

func TestListThenWatchInOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"),
		datastore.SQLiteConfig{Logger: quiet, CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	mustCreate := func(key, val string) {
		if _, err := store.Create(ctx, key, []byte(val)); err != nil {
			t.Fatal(err)
		}
	}
	mustCreate("/p/a", "1")
	mustCreate("/q/outside", "x")
	s := &sink{}
	r := New(store, "/p/", quiet, s)
	if err := r.List(ctx); err != nil {
		t.Fatal(err)
	}
	if r.Len() != 1 || r.Revision() == 0 {
		t.Fatalf("after List: got %d keys at revision %d, want 1 key at the list's revision", r.Len(), r.Revision())
	}
	done := make(chan struct{})
	go func() { r.Watch(ctx); close(done) }()
	mustCreate("/p/b", "2")
	kv, err := store.Get(ctx, "/p/a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Update(ctx, "/p/a", []byte("3"), kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Delete(ctx, "/p/b", 0); err != nil {
		t.Fatal(err)
	}
	want := []string{"upsert a=1", "upsert b=2", "upsert a=3", "remove b"}
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(s.lines(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("sink got %q, want %q", s.lines(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}
