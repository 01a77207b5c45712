package datastore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func openInternal(t testing.TB, cfg SQLiteConfig) *SQLite {
	t.Helper()
	st, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "state.db"), cfg)
	if err != nil {
		t.Fatalf("OpenSQLite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// waitQueued waits until n write requests sit in the writer's queue.
func waitQueued(t testing.TB, st *SQLite, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(st.reqs) < n {
		if time.Now().After(deadline) {
			t.Fatalf("write queue: got %d requests, want %d", len(st.reqs), n)
		}
		time.Sleep(time.Millisecond)
	}
}

type opResult struct {
	rev int64
	err error
}

// async runs op in a goroutine and returns where its result will arrive.
func async(op func() (int64, error)) <-chan opResult {
	ch := make(chan opResult, 1)
	go func() { rev, err := op(); ch <- opResult{rev, err} }()
	return ch
}

// TestGroupCommitOneBatch holds the writer inside a commit while three
// writes queue up, then checks they commit together, in arrival order, with
// later ones seeing earlier ones, and that the one that fails fails alone.
func TestGroupCommitOneBatch(t *testing.T) {
	release := make(chan struct{})
	var commits atomic.Int32
	st := openInternal(t, SQLiteConfig{CommitHook: func() {
		if commits.Add(1) == 1 {
			<-release
		}
	}})
	ctx := context.Background()
	first := async(func() (int64, error) { return st.Create(ctx, "/g/first", nil) })
	for deadline := time.Now().Add(10 * time.Second); commits.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	create := async(func() (int64, error) { return st.Create(ctx, "/g/k", []byte("1")) })
	waitQueued(t, st, 1)
	dup := async(func() (int64, error) { return st.Create(ctx, "/g/k", []byte("dup")) })
	waitQueued(t, st, 2)
	update := async(func() (int64, error) { return st.Update(ctx, "/g/k", []byte("2"), 2) })
	waitQueued(t, st, 3)
	close(release)
	checkResult(t, "first write", <-first, 1, nil)
	checkResult(t, "create in the batch", <-create, 2, nil)
	checkResult(t, "duplicate create in the batch", <-dup, 0, ErrKeyExists)
	checkResult(t, "update of the key created in the same batch", <-update, 3, nil)
	if n := commits.Load(); n != 2 {
		t.Fatalf("commits: got %d, want 2 (the held one, then one for the batch)", n)
	}
}

func checkResult(t testing.TB, what string, got opResult, rev int64, err error) {
	t.Helper()
	if got.rev != rev || !errors.Is(got.err, err) || (err == nil && got.err != nil) {
		t.Fatalf("%s: got revision %d, error %v; want %d, %v", what, got.rev, got.err, rev, err)
	}
}

// openWithFailingKey opens a store whose commit number hold waits for
// release to close, and in which a write of the key /boom fails at its
// statement (an injected trigger), failing its batch.
func openWithFailingKey(t *testing.T, hold int32) (*SQLite, chan struct{}, *atomic.Int32) {
	t.Helper()
	release := make(chan struct{})
	commits := new(atomic.Int32)
	st := openInternal(t, SQLiteConfig{CommitHook: func() {
		if commits.Add(1) == hold {
			<-release
		}
	}})
	db, err := openDB(st.path, nil) // the writer holds wdb's only connection
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER boom BEFORE INSERT ON log WHEN NEW.key = '/boom'
		BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	return st, release, commits
}

// TestFailedStatementFailsTheBatch injects a statement error (a trigger)
// into one write of a batch: every write in that batch fails, nothing of it
// is committed, and the next write takes the next revision, no gap.
func TestFailedStatementFailsTheBatch(t *testing.T) {
	st, release, commits := openWithFailingKey(t, 1)
	ctx := context.Background()
	first := async(func() (int64, error) { return st.Create(ctx, "/first", nil) })
	for deadline := time.Now().Add(10 * time.Second); commits.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	ok := async(func() (int64, error) { return st.Create(ctx, "/ok", nil) })
	waitQueued(t, st, 1)
	boom := async(func() (int64, error) { return st.Create(ctx, "/boom", nil) })
	waitQueued(t, st, 2)
	close(release)
	checkResult(t, "first write", <-first, 1, nil)
	if r := <-ok; r.err == nil {
		t.Fatalf("write batched with a failing one: got revision %d, want an error", r.rev)
	}
	if r := <-boom; r.err == nil || !strings.Contains(r.err.Error(), "injected failure") {
		t.Fatalf("failing write: got %d, %v; want the injected failure", r.rev, r.err)
	}
	if _, err := st.Get(ctx, "/ok"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a write from the failed batch: got %v, want ErrNotFound", err)
	}
	checkResult(t, "write after the failed batch", <-async(func() (int64, error) { return st.Create(ctx, "/ok", nil) }), 2, nil)
}

func countRows(t testing.TB, st *SQLite) int {
	t.Helper()
	var n int
	if err := st.rdb.QueryRow(`SELECT count(*) FROM log`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCompactDropsRows checks compaction really removes superseded rows
// and deletes, and only those.
func TestCompactDropsRows(t *testing.T) {
	st := openInternal(t, SQLiteConfig{})
	ctx := context.Background()
	a, _ := st.Create(ctx, "/a", []byte("1"))   // 1
	a, _ = st.Update(ctx, "/a", []byte("2"), a) // 2, supersedes 1
	b, _ := st.Create(ctx, "/b", []byte("1"))   // 3
	st.Delete(ctx, "/b", b)                     // 4, supersedes 3
	st.Update(ctx, "/a", []byte("3"), a)        // 5, supersedes 2
	if got := countRows(t, st); got != 5 {
		t.Fatalf("log rows before compaction: got %d, want 5", got)
	}
	if err := st.Compact(ctx, 4); err != nil {
		t.Fatal(err)
	}
	// Gone: 1 (superseded at 2), 3 and 4 (deleted at 4). Kept: 2 (the
	// state at 4, and PrevKV of 5) and 5.
	if got := countRows(t, st); got != 2 {
		t.Fatalf("log rows after compacting to 4: got %d, want 2", got)
	}
	if err := st.Compact(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if got := countRows(t, st); got != 1 {
		t.Fatalf("log rows after compacting to 5: got %d, want 1", got)
	}
}

func TestKeyUpperBound(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		want   any
	}{
		{"/a/", "/a0"},
		{"a", "b"},
		{"a\xff", "b"},
		{"", []byte{0xff}},
		{"\xff\xff", []byte{0xff}},
	} {
		got := keyUpperBound(tc.prefix)
		if s, ok := tc.want.(string); ok && got != s {
			t.Errorf("keyUpperBound(%q): got %q, want %q", tc.prefix, got, s)
		}
		if _, ok := tc.want.([]byte); ok {
			if _, isBytes := got.([]byte); !isBytes {
				t.Errorf("keyUpperBound(%q): got %q, want a BLOB bound", tc.prefix, got)
			}
		}
	}
}
