package datastore_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// crashAck is one write the child acknowledged before it was killed.
type crashAck struct {
	key     string
	version int
	rev     int64
}

// TestCrashKeepsAcknowledgedWrites kills a child running 16 concurrent
// writers with SIGKILL at random moments, 25 times over one database. After
// each kill the store must hold every write the child acknowledged, and
// its log must run from revision 1 without a gap.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	path := filepath.Join(t.TempDir(), "state.db")
	var verified int64 // the log is checked up to here
	total := 0
	for round := range 25 {
		// Every fourth round is killed without waiting for a first write,
		// so some kills land while the store opens or recovers.
		acks := runCrashRound(t, path, round, round%4 != 0, time.Duration(rng.Int64N(int64(150*time.Millisecond))))
		verified = verifyCrashRound(t, path, round, acks, verified)
		total += len(acks)
	}
	if total < 200 {
		t.Fatalf("children acknowledged %d writes in all, want >= 200 for the test to mean anything", total)
	}
	t.Logf("%d acknowledged writes survived 25 kills; log contiguous 1..%d", total, verified)
}

// runCrashRound starts the writer child, kills it with SIGKILL after delay
// (counted from its first acknowledgement when waitFirst) and returns what
// it acknowledged.
func runCrashRound(t *testing.T, path string, round int, waitFirst bool, delay time.Duration) []crashAck {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=crash-writer", "BRAMBLE_DB="+path, "BRAMBLE_ROUND="+strconv.Itoa(round))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	first := make(chan struct{})
	lines := make(chan []string, 1)
	go func() { lines <- readAckLines(stdout, first) }()
	if waitFirst {
		select {
		case <-first:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: no acknowledged write within 30s; child stderr: %s", round, stderr.String())
		}
	}
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("round %d: kill: %v", round, err)
	}
	got := <-lines
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("round %d: child ended with %v before the kill; stderr: %s", round, err, stderr.String())
	}
	return parseAcks(t, got)
}

// readAckLines returns the complete lines from r; a line cut by the kill
// (no newline) was never a whole acknowledgement and is dropped.
func readAckLines(r io.Reader, first chan<- struct{}) []string {
	br := bufio.NewReader(r)
	var out []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return out
		}
		if len(out) == 0 {
			close(first)
		}
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
}

func parseAcks(t testing.TB, lines []string) []crashAck {
	t.Helper()
	acks := make([]crashAck, 0, len(lines))
	for _, line := range lines {
		var a crashAck
		if _, err := fmt.Sscanf(line, "%s %d %d", &a.key, &a.version, &a.rev); err != nil {
			t.Fatalf("child printed %q: %v", line, err)
		}
		acks = append(acks, a)
	}
	return acks
}

// verifyCrashRound reopens the store and checks the log after the last
// verified revision against what the child acknowledged. It returns the
// revision now verified.
func verifyCrashRound(t *testing.T, path string, round int, acks []crashAck, verified int64) int64 {
	t.Helper()
	ctx := context.Background()
	st, err := datastore.OpenSQLite(ctx, path, datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatalf("round %d: reopen after kill: %v", round, err)
	}
	defer st.Close()
	cur, _ := st.CurrentRevision(ctx)
	events := replayLog(t, st, verified, cur)
	lastByWriter := map[string]int64{}
	for _, a := range acks {
		if a.rev <= verified || a.rev > cur {
			t.Fatalf("round %d: acknowledged %s v%d at revision %d, but the log after the kill holds (%d, %d]",
				round, a.key, a.version, a.rev, verified, cur)
		}
		ev := events[a.rev-verified-1]
		if ev.KV.Key != a.key || !bytes.Equal(ev.KV.Value, crashValue(a.key, a.version)) {
			t.Fatalf("round %d: revision %d holds %s (%d bytes), want %s v%d", round, a.rev, ev.KV.Key, len(ev.KV.Value), a.key, a.version)
		}
		writer := a.key[:strings.LastIndexByte(a.key, '/')]
		if a.rev <= lastByWriter[writer] {
			t.Fatalf("round %d: writer %s acknowledged revision %d after %d", round, writer, a.rev, lastByWriter[writer])
		}
		lastByWriter[writer] = a.rev
		if kv, err := st.Get(ctx, a.key); err != nil || kv.ModRevision < a.rev {
			t.Fatalf("round %d: Get(%s) after kill: got %v, %v; want revision >= %d", round, a.key, kv, err, a.rev)
		}
	}
	return cur
}

// replayLog reads events (from, to] through a watch and checks their
// revisions are exactly from+1 .. to.
func replayLog(t *testing.T, st datastore.Store, from, to int64) []datastore.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := st.Watch(ctx, "", from)
	if err != nil {
		t.Fatalf("watch after %d: %v", from, err)
	}
	var events []datastore.Event
	timeout := time.After(30 * time.Second)
	for int64(len(events)) < to-from {
		select {
		case evs, ok := <-ch:
			if !ok {
				t.Fatalf("watch closed after %d of %d events", len(events), to-from)
			}
			for _, ev := range evs {
				if want := from + int64(len(events)) + 1; ev.Revision != want {
					t.Fatalf("log after kill: got revision %d, want %d (no gaps)", ev.Revision, want)
				}
				events = append(events, ev)
			}
		case <-timeout:
			t.Fatalf("replay of (%d, %d]: got %d events in 30s", from, to, len(events))
		}
	}
	return events
}
