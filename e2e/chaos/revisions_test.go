//go:build chaos

package chaos

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// revisionsGapFree reads the SQLite datastore of a stopped server with
// sqlite3 and fails unless its log holds every revision from 1 to the
// last, none compacted away; it returns the last revision. It also runs
// SQLite's integrity check.
func revisionsGapFree(t *testing.T, dataDir string) int64 {
	t.Helper()
	out := sqlite(t, dataDir, `PRAGMA integrity_check;
SELECT count(*), coalesce(min(rev), 0), coalesce(max(rev), 0) FROM log;
SELECT value FROM meta WHERE name = 'compact_rev';`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || lines[0] != "ok" {
		t.Fatalf("sqlite3 on the datastore: got %q, want ok, the log's figures and compact_rev", out)
	}
	f := strings.Split(lines[1], "|")
	count, _ := strconv.ParseInt(f[0], 10, 64)
	first, _ := strconv.ParseInt(f[1], 10, 64)
	last, _ := strconv.ParseInt(f[2], 10, 64)
	if lines[2] != "0" {
		t.Fatalf("the datastore was compacted to %s: the gap check needs the whole log", lines[2])
	}
	if first != 1 || count != last {
		t.Fatalf("revision log: %d revisions from %d to %d, want every one from 1 to %d (gap-free)", count, first, last, last)
	}
	return last
}

// sqlite runs sqlite3 on the datastore of dataDir and returns its output.
func sqlite(t *testing.T, dataDir, sql string) string {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Fatal("sqlite3 missing: the chaos suite reads the datastore with it (hack/deps.sh)")
	}
	out, err := exec.Command("sqlite3", "-bail", datastore.DefaultSQLitePath(dataDir), sql).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	return string(out)
}
