package datastore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// rollbackFixture writes /k/a, snapshots, writes /k/b, /k/c and updates
// /k/a, then closes the store. It returns the snapshot file and the
// revision the store had reached.
func rollbackFixture(t *testing.T, path string) (snap string, issued int64) {
	t.Helper()
	ctx := context.Background()
	st, err := datastore.OpenSQLite(ctx, path, datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := st.Create(ctx, "/k/a", []byte("1"))
	var buf bytes.Buffer
	if err := st.Snapshot(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	snap = filepath.Join(t.TempDir(), "snap.db")
	if err := os.WriteFile(snap, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	st.Create(ctx, "/k/b", []byte("2"))
	st.Create(ctx, "/k/c", []byte("3"))
	issued, err = st.Update(ctx, "/k/a", []byte("4"), a)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return snap, issued
}

// TestRestoreOverADatastoreMovesPastItsRevisions: restoring an older
// snapshot over a datastore must never issue a revision again, and history
// from before the restore is compacted (a watch from there lists again).
func TestRestoreOverADatastoreMovesPastItsRevisions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	snap, issued := rollbackFixture(t, path)
	if err := datastore.SnapshotRestore(ctx, snap, path); err != nil {
		t.Fatalf("SnapshotRestore: %v", err)
	}
	st := openSQLite(t, path, datastore.SQLiteConfig{CompactInterval: -1})
	cur, _ := st.CurrentRevision(ctx)
	if cur <= issued {
		t.Fatalf("restored CurrentRevision: got %d, want more than %d (already issued)", cur, issued)
	}
	if compact, _ := st.CompactRevision(ctx); compact != cur {
		t.Fatalf("restored CompactRevision: got %d, want %d", compact, cur)
	}
	page, err := st.List(ctx, "/k/", datastore.ListOptions{})
	if err != nil || len(page.Items) != 1 || page.Items[0].Key != "/k/a" || string(page.Items[0].Value) != "1" {
		t.Fatalf("restored keys: got %+v (%v), want only /k/a=1", page, err)
	}
	if _, err := st.Watch(ctx, "/k/", issued-1); !errors.Is(err, datastore.ErrCompacted) {
		t.Fatalf("Watch from %d after the restore: got %v, want ErrCompacted", issued-1, err)
	}
	if rev, err := st.Create(ctx, "/k/d", []byte("5")); err != nil || rev != cur+1 {
		t.Fatalf("first write after restore: got revision %d (%v), want %d", rev, err, cur+1)
	}
	ch, err := st.Watch(ctx, "/k/", cur)
	if err != nil {
		t.Fatal(err)
	}
	if evs := <-ch; len(evs) != 1 || evs[0].KV.Key != "/k/d" {
		t.Fatalf("watch from the restored revision: got %+v, want the create of /k/d", evs)
	}
}

// TestRestoreOverAnUnreadableDatastoreBumpsFar: when the datastore being
// replaced cannot be read, the counter moves a long way instead.
func TestRestoreOverAnUnreadableDatastoreBumpsFar(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	snap, issued := rollbackFixture(t, path)
	if err := os.WriteFile(path, []byte("not a database, the reason for the restore"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + "-wal")
	if err := datastore.SnapshotRestore(ctx, snap, path); err != nil {
		t.Fatalf("SnapshotRestore: %v", err)
	}
	st := openSQLite(t, path, datastore.SQLiteConfig{CompactInterval: -1})
	if cur, _ := st.CurrentRevision(ctx); cur < 1_000_000_000 {
		t.Fatalf("restored CurrentRevision: got %d, want at least 1e9 past the snapshot (issued %d)", cur, issued)
	}
}
