package datastore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/storetest"
)

// openSQLite opens a store in dir (a fresh temp dir when empty) and closes
// it at the end of the test.
func openSQLite(t testing.TB, path string, cfg datastore.SQLiteConfig) *datastore.SQLite {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "server", "db", "state.db")
	}
	st, err := datastore.OpenSQLite(context.Background(), path, cfg)
	if err != nil {
		t.Fatalf("OpenSQLite(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return st
}

func TestSQLiteConformance(t *testing.T) {
	open := func(t testing.TB) datastore.Store {
		return openSQLite(t, "", datastore.SQLiteConfig{})
	}
	restore := func(t testing.TB, snapshot []byte) datastore.Store {
		t.Helper()
		dir := t.TempDir()
		file := filepath.Join(dir, "snapshot.db")
		if err := os.WriteFile(file, snapshot, 0o600); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "restored", "state.db")
		if err := datastore.SnapshotRestore(context.Background(), file, path); err != nil {
			t.Fatalf("SnapshotRestore: %v", err)
		}
		return openSQLite(t, path, datastore.SQLiteConfig{})
	}
	storetest.Run(t, open, storetest.WithRestore(restore))
}

func TestSQLiteReopenKeepsState(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := datastore.OpenSQLite(ctx, path, datastore.SQLiteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := st.Create(ctx, "/a", []byte("1"))
	d, _, err := st.Delete(ctx, "/a", c)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Compact(ctx, d); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if _, err := st.Create(ctx, "/b", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := st.Compact(ctx, d); !errors.Is(err, datastore.ErrClosed) {
		t.Fatalf("Compact after Close: got %v, want ErrClosed", err)
	}

	st = openSQLite(t, path, datastore.SQLiteConfig{})
	if cur, _ := st.CurrentRevision(ctx); cur != d+1 {
		t.Fatalf("CurrentRevision after reopen: got %d, want %d", cur, d+1)
	}
	if got, _ := st.CompactRevision(ctx); got != d {
		t.Fatalf("CompactRevision after reopen: got %d, want %d", got, d)
	}
	kv, err := st.Get(ctx, "/b")
	if err != nil || string(kv.Value) != "kept" {
		t.Fatalf("Get after reopen: got %v, %v; want kept", kv, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("db file mode: got %v (err %v), want 0600", info.Mode().Perm(), err)
	}
}

// TestSQLiteReopenAfterCompactingLastDelete: the newest row is a compacted
// delete; reopening must not hand its revision out again.
func TestSQLiteReopenAfterCompactingLastDelete(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := datastore.OpenSQLite(ctx, path, datastore.SQLiteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := st.Create(ctx, "/a", []byte("1"))
	d, _, _ := st.Delete(ctx, "/a", c)
	if err := st.Compact(ctx, d); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openSQLite(t, path, datastore.SQLiteConfig{})
	if rev, err := st.Create(ctx, "/a", []byte("2")); err != nil || rev != d+1 {
		t.Fatalf("create after reopen: got revision %d (err %v), want %d", rev, err, d+1)
	}
}

func TestSQLiteRejectsForeignDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not sqlite "), 500), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := datastore.OpenSQLite(context.Background(), path, datastore.SQLiteConfig{}); err == nil {
		t.Fatal("OpenSQLite of a file that is not SQLite: got nil error")
	}
}

// TestSQLiteSlowWatcherIsCutOff: a watcher that does not read is closed
// once it is WatchBuffer commits behind, after delivering everything
// before the gap in order; writers never wait for it.
func TestSQLiteSlowWatcherIsCutOff(t *testing.T) {
	st := openSQLite(t, "", datastore.SQLiteConfig{WatchBuffer: 4})
	ctx := context.Background()
	ch, err := st.Watch(ctx, "/s/", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := st.Create(ctx, "/s/"+string(rune('a'+i)), nil); err != nil {
			t.Fatalf("write %d with a stalled watcher: %v", i, err)
		}
	}
	var last int64
	timeout := time.After(20 * time.Second)
	for {
		select {
		case evs, ok := <-ch:
			if !ok {
				if last >= 20 || last < 1 {
					t.Fatalf("slow watcher: closed after revision %d, want cut off before 20", last)
				}
				return
			}
			for _, ev := range evs {
				if ev.Revision != last+1 {
					t.Fatalf("slow watcher: got revision %d after %d", ev.Revision, last)
				}
				last = ev.Revision
			}
		case <-timeout:
			t.Fatalf("slow watcher: channel not closed (last revision %d)", last)
		}
	}
}

func TestSQLiteBackgroundCompaction(t *testing.T) {
	st := openSQLite(t, "", datastore.SQLiteConfig{CompactInterval: 20 * time.Millisecond, CompactRetain: 5})
	ctx := context.Background()
	rev, _ := st.Create(ctx, "/bg/k", []byte("0"))
	for i := range 20 {
		var err error
		if rev, err = st.Update(ctx, "/bg/k", []byte{byte(i)}, rev); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _ := st.CompactRevision(ctx)
		if got == rev-5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("background compaction: compact revision %d, want %d", got, rev-5)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if kv, err := st.Get(ctx, "/bg/k"); err != nil || kv.ModRevision != rev {
		t.Fatalf("Get after background compaction: got %v, %v; want revision %d", kv, err, rev)
	}
}
