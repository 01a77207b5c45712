//go:build chaos

package chaos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestKill9DuringSnapshotSave runs `bramble datastore snapshot save` while
// writers create ConfigMaps and, as soon as its temporary file appears,
// kills it and the server with SIGKILL (a power cut in the middle of a
// backup). The server must come back with every acknowledged write and a
// sound database; the killed save must have left no snapshot; the next
// save must succeed, remove the leftover temporary file and hold every
// write acknowledged before it began.
func TestKill9DuringSnapshotSave(t *testing.T) {
	t.Parallel()
	rounds := pick(2, 8)
	s := cluster.StartServer(t)
	c := cluster.NewClient(t, s.Kubeconfig)
	out := t.TempDir()
	acked := map[string]string{}
	for round := range rounds {
		var stop atomic.Bool
		write := func(w, seq int) (string, string, bool) {
			name := fmt.Sprintf("s%d-w%d-%d", round, w, seq)
			if stop.Load() {
				return "", "", false
			}
			rv, ok := create(c, name, seq)
			return name, rv, ok
		}
		got, _ := writeUntilKilled(8, write, pick(time.Second, 3*time.Second), func() { stop.Store(true) })
		for name, rv := range got {
			acked[name] = rv
		}
		snap := filepath.Join(out, fmt.Sprintf("killed-%d.db", round))
		killSaveMidway(t, s, snap)
		s.Kill()
		if _, err := os.Stat(snap); err == nil {
			t.Fatalf("round %d: the killed save left a snapshot %s", round, snap)
		}
		s.Start()
		if lost := lostWrites(t, c, acked, true); len(lost) > 0 {
			t.Fatalf("round %d: %d acknowledged writes lost after kill -9 during a snapshot save, e.g. %v", round, len(lost), lost[:min(5, len(lost))])
		}
	}
	good := filepath.Join(out, "good.db")
	cluster.MustRun(t, cluster.Bin, "datastore", "snapshot", "save", good, "--data-dir", s.DataDir)
	if left := snapshotTemps(t, out); len(left) > 0 {
		t.Fatalf("after a good save, temporary files remain: %v", left)
	}
	checkSnapshot(t, good, acked)
	figure("kill9-snapshot-save-%d-rounds: acked=%d lost=0 temp files left=0 later save ok", rounds, len(acked))
}

// killSaveMidway starts a snapshot save into snap and kills it with
// SIGKILL as soon as its temporary file exists. A save that finishes
// before its file is seen (a loaded machine) is removed and tried again.
func killSaveMidway(t *testing.T, s *cluster.Server, snap string) {
	t.Helper()
	for range 10 {
		if trySaveMidway(t, s, snap) {
			return
		}
		if err := os.Remove(snap); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	t.Fatal("10 snapshot saves finished before their temporary file was seen: the kill never landed mid-save")
}

// trySaveMidway is one attempt of killSaveMidway; false when the save
// finished first.
func trySaveMidway(t *testing.T, s *cluster.Server, snap string) bool {
	t.Helper()
	cmd := exec.Command(cluster.Bin, "datastore", "snapshot", "save", snap, "--data-dir", s.DataDir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	prefix := fmt.Sprintf(".bramble-snapshot-%d-", cmd.Process.Pid)
	for !hasPrefix(t, filepath.Dir(snap), prefix) {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("snapshot save failed: %v", err)
			}
			return false
		case <-time.After(200 * time.Microsecond):
		}
	}
	_ = cmd.Process.Kill()
	if err := <-exited; err == nil {
		return false // it finished between the look and the kill
	}
	return hasPrefix(t, filepath.Dir(snap), prefix) // else it was renaming: it got through

}

func hasPrefix(t *testing.T, dir, prefix string) bool {
	for _, name := range snapshotTemps(t, dir) {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// snapshotTemps lists the snapshot temporary files in dir.
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

// checkSnapshot runs SQLite's integrity check on a snapshot file and wants
// every acknowledged ConfigMap in it at its acknowledged revision.
func checkSnapshot(t *testing.T, file string, acked map[string]string) {
	t.Helper()
	raw, err := exec.Command("sqlite3", "-bail", file, "PRAGMA integrity_check; SELECT key, rev FROM current;").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 %s: %v\n%s", file, err, raw)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if lines[0] != "ok" {
		t.Fatalf("integrity check of the snapshot: %s", lines[0])
	}
	have := map[string]string{}
	for _, l := range lines[1:] {
		key, rev, _ := strings.Cut(l, "|")
		have[key[strings.LastIndex(key, "/")+1:]] = rev
	}
	for name, rv := range acked {
		if have[name] != rv {
			t.Fatalf("snapshot %s: %s at revision %q, want %s", file, name, have[name], rv)
		}
	}
}
