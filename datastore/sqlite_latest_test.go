package datastore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	if _, ok := c.get("a"); ok || c.n != 0 {
		t.Errorf("after reset: a found %v, %d puts; want nothing", ok, c.n)
	}
}

// TestLatestCacheBoundsBytes keeps the values' bytes under latestBytes by
// forgetting the oldest keys, and does not keep a value above
// latestMaxValue, not even an older, smaller one of the same key.
func TestLatestCacheBoundsBytes(t *testing.T) {
	c := newLatestCache(1000)
	value := make([]byte, latestMaxValue)
	n := latestBytes/latestMaxValue + 2
	for i := range n {
		c.put(&KeyValue{Key: fmt.Sprint(i), Value: value})
		if c.bytes > latestBytes {
			t.Fatalf("after %d puts: %d bytes, want at most %d", i+1, c.bytes, latestBytes)
		}
	}
	for i, want := range map[int]bool{0: false, 1: false, 2: true, n - 1: true} {
		if _, ok := c.get(fmt.Sprint(i)); ok != want {
			t.Errorf("key %d: found %v, want %v", i, ok, want)
		}
	}
	c.put(&KeyValue{Key: "2", Value: make([]byte, latestMaxValue+1)})
	if _, ok := c.get("2"); ok || c.bytes != (n-3)*latestMaxValue {
		t.Errorf("after a too large value: key found %v, %d bytes; want it gone, %d", ok, c.bytes, (n-3)*latestMaxValue)
	}
}

// TestLatestCacheForgetsRolledBackWrites updates a key in a batch that a
// failing statement rolls back: the writer must not take the update it
// remembered for the live row. The next conditional writes see revision 1
// and its value, as the file holds them.
func TestLatestCacheForgetsRolledBackWrites(t *testing.T) {
	st, release, commits := openWithFailingKey(t, 2)
	ctx := context.Background()
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

// TestLatestCacheForgottenWhenIdle checks the writer forgets what it
// remembered once idle: the value is changed in the file behind its back,
// and after the idle time the delete's previous value is the file's.
func TestLatestCacheForgottenWhenIdle(t *testing.T) {
	was := latestIdle
	t.Cleanup(func() { latestIdle = was }) // after the store's Close
	latestIdle = 20 * time.Millisecond
	st := openInternal(t, SQLiteConfig{})
	ctx := context.Background()
	rev, err := st.Create(ctx, "/idle", []byte("v1"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDB(st.path, nil) // the writer holds wdb's only connection
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE log SET value = 'file' WHERE rev = ?`, rev); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * latestIdle)
	_, prev, err := st.Delete(ctx, "/idle", rev)
	if err != nil || prev.ModRevision != rev || string(prev.Value) != "file" {
		t.Fatalf("delete after idle: got %+v, %v; want revision %d with the file's value", prev, err, rev)
	}
}
