package datastore_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// TestSnapshotSaveFromAnotherProcess saves a snapshot from a child process
// while this process keeps writing, then restores it: the copy must be one
// consistent revision (keys 1..R, nothing after R, nothing missing).
func TestSnapshotSaveFromAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server", "db", "state.db")
	st := openSQLite(t, path, datastore.SQLiteConfig{})
	written, stop := startSequentialWriter(t, st)
	for written.Load() < 50 {
		time.Sleep(time.Millisecond)
	}
	before := written.Load()
	out := filepath.Join(dir, "backup.db")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=snapshot-save", "BRAMBLE_DB="+path, "BRAMBLE_OUT="+out)
	output, err := cmd.CombinedOutput()
	stop()
	if err != nil {
		t.Fatalf("SnapshotSave in a child process: %v\n%s", err, output)
	}
	rev := checkSequentialSnapshot(t, out, filepath.Join(dir, "restored", "state.db"))
	t.Logf("writes: %d before the save started, %d when it ended; the snapshot holds %d", before, written.Load(), rev)
}

// startSequentialWriter creates /snap/000001, /snap/000002, ... (key i at
// revision i) until stop is called.
func startSequentialWriter(t *testing.T, st datastore.Store) (written *atomic.Int64, stop func()) {
	written = new(atomic.Int64)
	quit, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := 1; ; i++ {
			select {
			case <-quit:
				done <- nil
				return
			default:
			}
			if _, err := st.Create(context.Background(), fmt.Sprintf("/snap/%06d", i), []byte(fmt.Sprint(i))); err != nil {
				done <- err
				return
			}
			written.Store(int64(i))
		}
	}()
	return written, func() {
		close(quit)
		if err := <-done; err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
}

// checkSequentialSnapshot restores snap to path and checks it holds
// exactly the keys of revisions 1..R. It returns R.
func checkSequentialSnapshot(t *testing.T, snap, path string) int64 {
	t.Helper()
	ctx := context.Background()
	if err := datastore.SnapshotRestore(ctx, snap, path); err != nil {
		t.Fatalf("SnapshotRestore: %v", err)
	}
	rs := openSQLite(t, path, datastore.SQLiteConfig{})
	rev, _ := rs.CurrentRevision(ctx)
	res, err := rs.List(ctx, "/snap/", datastore.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rev < 50 || int64(len(res.Items)) != rev {
		t.Fatalf("restored snapshot: got %d keys at revision %d, want one key per revision, at least 50", len(res.Items), rev)
	}
	for i, kv := range res.Items {
		if want := fmt.Sprintf("/snap/%06d", i+1); kv.Key != want || kv.ModRevision != int64(i+1) {
			t.Fatalf("restored key %d: got %s@%d, want %s@%d", i, kv.Key, kv.ModRevision, want, i+1)
		}
	}
	return rev
}

// TestSnapshotRestoreRefusesOpenDatabase: restoring over a database a
// running process holds open must fail and leave it alone.
func TestSnapshotRestoreRefusesOpenDatabase(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	snap := writeSnapshot(t, filepath.Join(dir, "src.db"), filepath.Join(dir, "snap.db"))
	live := filepath.Join(dir, "live.db")
	release := holdOpenInChild(t, live)
	err := datastore.SnapshotRestore(ctx, snap, live)
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("restore over a database in use: got %v, want an 'in use' error", err)
	}
	release()
	if err := datastore.SnapshotRestore(ctx, snap, live); err != nil {
		t.Fatalf("restore after the holder exited: %v", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(live + suffix); err == nil {
			t.Errorf("restore left a stale %s file", suffix)
		}
	}
	st := openSQLite(t, live, datastore.SQLiteConfig{})
	if _, err := st.Get(ctx, "/from-snapshot"); err != nil {
		t.Fatalf("Get from the restored store: %v", err)
	}
	if _, err := st.Get(ctx, "/held"); err == nil {
		t.Fatal("the old database's key survived the restore")
	}
}

// writeSnapshot makes a store at src holding /from-snapshot and writes
// its snapshot to out.
func writeSnapshot(t *testing.T, src, out string) string {
	t.Helper()
	ctx := context.Background()
	st := openSQLite(t, src, datastore.SQLiteConfig{})
	if _, err := st.Create(ctx, "/from-snapshot", nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := st.Snapshot(ctx, f); err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	return out
}

// holdOpenInChild starts a child that keeps a store at path open, as a
// running server would; release kills it.
func holdOpenInChild(t *testing.T, path string) (release func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=hold-open", "BRAMBLE_DB="+path)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	release = func() { cmd.Process.Kill(); cmd.Wait() }
	t.Cleanup(release)
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("hold-open child: got %q, %v", line, err)
	}
	return release
}

// TestSnapshotRestoreRejectsBadFiles: garbage, a SQLite file that is not a
// bramble datastore, and a missing file all fail without touching the
// target.
func TestSnapshotRestoreRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("garbage ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite3", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	target := filepath.Join(dir, "target.db")
	for name, in := range map[string]string{"garbage": garbage, "foreign SQLite": foreign, "missing": filepath.Join(dir, "nope")} {
		if err := datastore.SnapshotRestore(ctx, in, target); err == nil {
			t.Errorf("restore of %s file: got nil error", name)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a rejected restore created the target database")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".bramble-") {
			t.Errorf("rejected restore left temp file %s", e.Name())
		}
	}
}

// TestSnapshotSaveOfStoppedStore saves from a cleanly closed store and from
// one whose writer was killed (a WAL full of commits, no checkpoint).
func TestSnapshotSaveOfStoppedStore(t *testing.T) {
	ctx := context.Background()
	for _, killed := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		var want int64
		if killed {
			acks := runCrashRound(t, path, 0, true, 50*time.Millisecond)
			want = acks[len(acks)-1].rev
		} else {
			st, err := datastore.OpenSQLite(ctx, path, datastore.SQLiteConfig{})
			if err != nil {
				t.Fatal(err)
			}
			want, _ = st.Create(ctx, "/k", []byte("v"))
			st.Close()
		}
		out := filepath.Join(dir, "snap.db")
		if err := datastore.SnapshotSave(ctx, path, out); err != nil {
			t.Fatalf("SnapshotSave (writer killed: %v): %v", killed, err)
		}
		restored := filepath.Join(dir, "restored.db")
		if err := datastore.SnapshotRestore(ctx, out, restored); err != nil {
			t.Fatalf("SnapshotRestore (writer killed: %v): %v", killed, err)
		}
		st := openSQLite(t, restored, datastore.SQLiteConfig{})
		if got, _ := st.CurrentRevision(ctx); got < want {
			t.Fatalf("restored revision (writer killed: %v): got %d, want >= %d", killed, got, want)
		}
	}
}
