package datastore_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A kill -9 leaves the page cache intact, so the crash test cannot tell a
// store that fsyncs from one that does not. This test traces the child's
// syscalls instead: every acknowledged write must be preceded (after the
// previous acknowledgement) by an fsync or fdatasync of the WAL file.

const fsyncWrites = 25

func TestEveryAcknowledgedWriteIsFsynced(t *testing.T) {
	strace := requireStrace(t)
	trace := traceFsyncWriter(t, strace, "")
	if problems := checkFsyncTrace(trace, fsyncWrites); len(problems) > 0 {
		t.Fatalf("with the store's default settings:\n%s", strings.Join(problems, "\n"))
	}
}

// TestFsyncCheckCatchesNoSync is the negative control: the same check must
// fail for a store that commits without fsync.
func TestFsyncCheckCatchesNoSync(t *testing.T) {
	strace := requireStrace(t)
	for _, mode := range []string{"OFF", "NORMAL"} {
		trace := traceFsyncWriter(t, strace, mode)
		if problems := checkFsyncTrace(trace, fsyncWrites); len(problems) == 0 {
			t.Errorf("with synchronous=%s the fsync check found nothing wrong; it cannot tell", mode)
		}
	}
}

// requireStrace fails (never skips) when strace is missing: without it the
// durability claim is unproven.
func requireStrace(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("strace")
	if err != nil {
		t.Fatalf("strace not found (%v): install it (apt-get install strace); the fsync proof needs it", err)
	}
	return path
}

// traceFsyncWriter runs the fsync-writer child under strace and returns the
// trace's lines. sync overrides PRAGMA synchronous ("" = the store's own).
func traceFsyncWriter(t *testing.T, strace, sync string) []string {
	t.Helper()
	dir := t.TempDir()
	logFile := filepath.Join(dir, "strace.log")
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cmd := exec.Command(strace, "-f", "-y", "-qq", "-e", "trace=fsync,fdatasync,write", "-o", logFile, os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=fsync-writer", "BRAMBLE_DB="+filepath.Join(dir, "state.db"),
		"BRAMBLE_WRITES="+strconv.Itoa(fsyncWrites), "BRAMBLE_SYNC="+sync)
	cmd.ExtraFiles = []*os.File{devnull} // fd 3 in the child: the ack stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace child: %v\n%s", err, out)
	}
	f, err := os.Open(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

var (
	ackLine = regexp.MustCompile(`write\(3<[^>]*>, "ack (\d+)\\n"`)
	walSync = regexp.MustCompile(`f(data)?sync\(\d+<[^>]*-wal>`)
)

// checkFsyncTrace lists every acknowledgement not preceded, since the
// previous one, by a sync of the WAL (entry lines carry the fd's path).
func checkFsyncTrace(lines []string, wantAcks int) []string {
	var problems []string
	acks, syncs := 0, 0
	for _, line := range lines {
		switch {
		case walSync.MatchString(line):
			syncs++
		case ackLine.MatchString(line):
			acks++
			if syncs == 0 {
				rev := ackLine.FindStringSubmatch(line)[1]
				problems = append(problems, fmt.Sprintf("ack of revision %s with no WAL fsync since the previous ack", rev))
			}
			syncs = 0
		}
	}
	if acks != wantAcks {
		problems = append(problems, fmt.Sprintf("trace shows %d acks, want %d", acks, wantAcks))
	}
	return problems
}
