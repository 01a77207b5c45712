package datastore

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestLatestCacheKeepsTheNewestPuts fills a cache of three: a key put
// again outlives its first put, the others leave oldest first, and the
// cache never holds more keys than its size.
func TestLatestCacheKeepsTheNewestPuts(t *testing.T) {
	c := newLatestCache(3)
	for i, k := range []string{"a", "b", "c", "a", "d", "e"} {
		c.put(&KeyValue{Key: k, ModRevision: int64(i + 1)})
		if len(c.rows) > 3 {
			t.Fatalf("after putting %s: %d keys, want at most 3", k, len(c.rows))
		}
	}
	for k, want := range map[string]int64{"a": 4, "b": 0, "c": 0, "d": 5, "e": 6} {
		kv, ok := c.get(k)
		switch {
		case want == 0 && ok:
			t.Errorf("%s: got revision %d, want it forgotten", k, kv.ModRevision)
		case want != 0 && (!ok || kv.ModRevision != want):
			t.Errorf("%s: got %v (found %v), want revision %d", k, kv, ok, want)
		}
	}
	if kv, _ := c.get("a"); kv.Value == nil {
		t.Errorf("a nil value: got nil, want empty as the log column holds it")
	}
	c.reset()
	if _, ok := c.get("a"); ok || len(c.ring) != 0 {
		t.Errorf("after reset: a found %v, ring %d; want nothing", ok, len(c.ring))
	}
}

// TestLatestCacheForgetsRolledBackWrites updates a key in a batch that a
// failing statement rolls back: the writer must not take the update it
// remembered for the live row. The next conditional writes see revision 1
// and its value, as the file holds them.
func TestLatestCacheForgetsRolledBackWrites(t *testing.T) {
	release := make(chan struct{})
	var commits atomic.Int32
	st := openInternal(t, SQLiteConfig{CommitHook: func() {
		if commits.Add(1) == 2 {
			<-release
		}
	}})
	ctx := context.Background()
	db, err := openDB(st.path, nil) // the writer holds wdb's only connection
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER boom BEFORE INSERT ON log WHEN NEW.key = '/boom'
		BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	checkResult(t, "create", <-async(func() (int64, error) { return st.Create(ctx, "/k", []byte("v1")) }), 1, nil)
	held := async(func() (int64, error) { return st.Create(ctx, "/held", nil) })
	for deadline := time.Now().Add(10 * time.Second); commits.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	update := async(func() (int64, error) { return st.Update(ctx, "/k", []byte("v2"), 1) })
	waitQueued(t, st, 1)
	boom := async(func() (int64, error) { return st.Create(ctx, "/boom", nil) })
	waitQueued(t, st, 2)
	close(release)
	checkResult(t, "held write", <-held, 2, nil)
	if r := <-update; r.err == nil {
		t.Fatalf("update batched with a failing write: got revision %d, want an error", r.rev)
	}
	if r := <-boom; r.err == nil {
		t.Fatalf("failing write: got revision %d, want an error", r.rev)
	}
	if _, err := st.Update(ctx, "/k", []byte("v3"), 3); !errors.Is(err, ErrConflict) {
		t.Fatalf("update at the rolled-back revision: got %v, want ErrConflict", err)
	}
	_, prev, err := st.Delete(ctx, "/k", 1)
	if err != nil || prev.ModRevision != 1 || !bytes.Equal(prev.Value, []byte("v1")) {
		t.Fatalf("delete at revision 1: got %+v, %v; want revision 1 with v1", prev, err)
	}
}
