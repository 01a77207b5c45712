package datastore_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// TestKilledSnapshotSaveLeavesNothingBehind kills `snapshot save` (a child
// process running SnapshotSave) while it writes its temp file: the next
// save beside it removes the leftover, and so does the next start of a
// store whose folder holds one.
func TestKilledSnapshotSaveLeavesNothingBehind(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "db", "state.db")
	st := openSQLite(t, path, datastore.SQLiteConfig{})
	value := bytes.Repeat([]byte("x"), 64<<10)
	for i := range 400 { // ~26 MB: VACUUM INTO takes long enough to be caught
		if _, err := st.Create(ctx, fmt.Sprintf("/big/%04d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	backups := filepath.Join(dir, "backups")
	if err := os.MkdirAll(backups, 0o700); err != nil {
		t.Fatal(err)
	}
	// A save under way (this process is alive) keeps its temp file.
	live := filepath.Join(backups, fmt.Sprintf(".bramble-snapshot-%d-1.db", os.Getpid()))
	if err := os.WriteFile(live, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(backups, "snap.db")
	killSaveMidway(t, path, out)
	if err := datastore.SnapshotSave(ctx, path, out); err != nil {
		t.Fatal(err)
	}
	if left := snapshotTemps(t, backups); len(left) != 1 || left[0] != filepath.Base(live) {
		t.Fatalf("after the next save: got %v, want only the live save's %s", left, filepath.Base(live))
	}
	os.Remove(live)

	killSaveMidway(t, path, filepath.Join(dir, "db", "snap.db"))
	st.Close()
	openSQLite(t, path, datastore.SQLiteConfig{})
	if left := snapshotTemps(t, filepath.Join(dir, "db")); len(left) > 0 {
		t.Fatalf("after the store's next start: leftover %v", left)
	}
}

// killSaveMidway runs SnapshotSave of path to out in a child process and
// kills it (SIGKILL) as soon as its temp file appears beside out.
func killSaveMidway(t *testing.T, path, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=snapshot-save", "BRAMBLE_DB="+path, "BRAMBLE_OUT="+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	before := len(snapshotTemps(t, filepath.Dir(out)))
	deadline := time.Now().Add(20 * time.Second)
	for len(snapshotTemps(t, filepath.Dir(out))) == before {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the child's snapshot temp file did not appear within 20s")
		}
		time.Sleep(200 * time.Microsecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the save finished before it was killed")
	}
	if len(snapshotTemps(t, filepath.Dir(out))) == before {
		t.Fatal("the killed save left no temp file: nothing to clean up")
	}
}

func snapshotTemps(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".bramble-snapshot-") {
			out = append(out, e.Name())
		}
	}
	return out
}
