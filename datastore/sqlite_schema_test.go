package datastore

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sqliteSchemaV1 is schema version 1 as bramble first wrote it, with the
// log_key_rev index that later code drops.
var sqliteSchemaV1 = []string{
	`CREATE TABLE log (
		rev        INTEGER PRIMARY KEY,
		key        TEXT    NOT NULL,
		create_rev INTEGER NOT NULL,
		prev_rev   INTEGER NOT NULL,
		deleted    INTEGER NOT NULL,
		value      BLOB    NOT NULL
	)`,
	`CREATE INDEX log_key_rev ON log (key, rev)`,
	`CREATE TABLE current (
		key        TEXT    PRIMARY KEY,
		rev        INTEGER NOT NULL,
		create_rev INTEGER NOT NULL
	) WITHOUT ROWID`,
	`CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID`,
	`INSERT INTO meta (name, value) VALUES ('compact_rev', 0)`,
	`PRAGMA application_id = 1651666274`,
	`PRAGMA user_version = 1`,
}

// listAtV1 is how a version-1 reader (an older bramble) lists at an old
// revision: for every key, its newest row at or before the revision.
const listAtV1 = `SELECT l.key, l.value, l.create_rev, l.rev FROM log l
	WHERE l.key >= ?1 AND l.key < ?2 AND l.rev <= ?3 AND l.deleted = 0
	AND NOT EXISTS (SELECT 1 FROM log n WHERE n.key = l.key AND n.rev > l.rev AND n.rev <= ?3)
	ORDER BY l.key LIMIT ?4`

// v1Writer writes a history into a version-1 file with plain SQL, the rows
// an older bramble's writer made.
type v1Writer struct {
	t   testing.TB
	db  *sql.DB
	rev int64
}

func newV1File(t testing.TB, path string) *v1Writer {
	t.Helper()
	db, err := openDB(path, url.Values{"_journal_mode": {"WAL"}})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	for _, stmt := range sqliteSchemaV1 {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("v1 schema: %v", err)
		}
	}
	return &v1Writer{t: t, db: db}
}

func (w *v1Writer) exec(query string, args ...any) {
	w.t.Helper()
	if _, err := w.db.Exec(query, args...); err != nil {
		w.t.Fatalf("%s: %v", query, err)
	}
}

// put creates key or updates it; del deletes it.
func (w *v1Writer) put(key, value string) {
	w.t.Helper()
	w.rev++
	var prev, create int64
	err := w.db.QueryRow(`SELECT rev, create_rev FROM current WHERE key = ?`, key).Scan(&prev, &create)
	if err == sql.ErrNoRows {
		create = w.rev
	} else if err != nil {
		w.t.Fatal(err)
	}
	w.exec(`INSERT INTO log VALUES (?, ?, ?, ?, 0, ?)`, w.rev, key, create, prev, []byte(value))
	w.exec(`INSERT OR REPLACE INTO current VALUES (?, ?, ?)`, key, w.rev, create)
}

func (w *v1Writer) del(key string) {
	w.t.Helper()
	w.rev++
	w.exec(`INSERT INTO log SELECT ?, key, create_rev, rev, 1, value FROM log WHERE rev = (SELECT rev FROM current WHERE key = ?)`, w.rev, key)
	w.exec(`DELETE FROM current WHERE key = ?`, key)
}

func indexNames(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

func userVersion(t testing.TB, db *sql.DB) int64 {
	t.Helper()
	var v int64
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestOpenV1FileDropsIndex opens a file made with the index (as bramble
// wrote version 1): the index is dropped in place, the version stays 1, and
// the history written before reads the same at every revision.
func TestOpenV1FileDropsIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	w := newV1File(t, path)
	w.put("/a", "a1")
	w.put("/b", "b1")
	w.put("/a", "a2")
	w.del("/b")
	w.put("/c", "c1")
	w.put("/b", "b2")
	w.del("/a")
	if got := indexNames(t, w.db); !slices.Equal(got, []string{"log_key_rev"}) {
		t.Fatalf("fixture indexes: got %v, want [log_key_rev]", got)
	}
	w.db.Close()

	st, err := OpenSQLite(context.Background(), path, SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatalf("OpenSQLite on a version-1 file: %v", err)
	}
	defer st.Close()
	if got := indexNames(t, st.rdb); len(got) != 0 {
		t.Errorf("indexes after open: got %v, want none", got)
	}
	if got := userVersion(t, st.rdb); got != 1 {
		t.Errorf("user_version after open: got %d, want 1 (older readers accept the file)", got)
	}
	want := map[int64]string{
		1: "/a=a1@1",
		2: "/a=a1@1 /b=b1@2",
		3: "/a=a2@3 /b=b1@2",
		4: "/a=a2@3",
		5: "/a=a2@3 /c=c1@5",
		6: "/a=a2@3 /b=b2@6 /c=c1@5",
		7: "/b=b2@6 /c=c1@5",
	}
	for rev := int64(1); rev <= 7; rev++ {
		res, err := st.List(context.Background(), "/", ListOptions{Revision: rev})
		if err != nil {
			t.Fatalf("List at %d: %v", rev, err)
		}
		if got := kvString(res.Items); got != want[rev] {
			t.Errorf("List at %d: got %q, want %q", rev, got, want[rev])
		}
	}
	if _, err := st.Update(context.Background(), "/c", []byte("c2"), 5); err != nil {
		t.Fatalf("Update after the upgrade: %v", err)
	}
}

func kvString(items []*KeyValue) string {
	var parts []string
	for _, kv := range items {
		parts = append(parts, fmt.Sprintf("%s=%s@%d", kv.Key, kv.Value, kv.ModRevision))
	}
	return strings.Join(parts, " ")
}

// TestNewFileReadableByV1Reader checks a rollback: a file this code wrote
// (no index) passes a version-1 reader's schema check, and the version-1
// List at an old revision answers exactly what listAt answers, at every
// revision of a random history with compaction and paging.
func TestNewFileReadableByV1Reader(t *testing.T) {
	st := openInternal(t, SQLiteConfig{CompactInterval: -1, synchronous: "OFF"})
	ctx := context.Background()
	if err := checkSchema(ctx, st.rdb); err != nil {
		t.Fatalf("version-1 schema check: %v", err)
	}
	if got := userVersion(t, st.rdb); got != 1 {
		t.Fatalf("user_version: got %d, want 1", got)
	}
	rng := rand.New(rand.NewPCG(12, 1))
	live := map[string]int64{}
	for range 600 {
		key := fmt.Sprintf("/r/%02d", rng.IntN(40))
		rev, ok := live[key]
		var err error
		switch {
		case !ok:
			live[key], err = st.Create(ctx, key, []byte(fmt.Sprint(rng.Int())))
		case rng.IntN(4) == 0:
			_, _, err = st.Delete(ctx, key, rev)
			delete(live, key)
		default:
			live[key], err = st.Update(ctx, key, []byte(fmt.Sprint(rng.Int())), rev)
		}
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(100) == 0 {
			if err := st.Compact(ctx, max(st.compactRev.Load(), st.rev.Load()-rng.Int64N(50))); err != nil {
				t.Fatal(err)
			}
		}
	}
	for rev := st.compactRev.Load(); rev <= st.rev.Load(); rev++ {
		if rev == 0 {
			continue
		}
		for _, prefix := range []string{"/", "/r/1", "/r/3"} {
			want := v1List(t, st.rdb, prefix, rev)
			res, err := st.List(ctx, prefix, ListOptions{Revision: rev})
			if err != nil {
				t.Fatal(err)
			}
			if got := kvString(res.Items); got != want {
				t.Fatalf("List %s at %d: got %q, want %q (version-1 reader)", prefix, rev, got, want)
			}
			paged := pagedList(t, st, prefix, rev, 3)
			if paged != want {
				t.Fatalf("List %s at %d in pages of 3: got %q, want %q", prefix, rev, paged, want)
			}
		}
	}
}

func v1List(t testing.TB, db *sql.DB, prefix string, rev int64) string {
	t.Helper()
	rows, err := db.Query(listAtV1, prefix, keyUpperBound(prefix), rev, -1)
	if err != nil {
		t.Fatalf("version-1 list: %v", err)
	}
	items, err := scanKVs(rows)
	if err != nil {
		t.Fatalf("version-1 list: %v", err)
	}
	return kvString(items)
}

func pagedList(t testing.TB, st *SQLite, prefix string, rev, limit int64) string {
	t.Helper()
	var all []*KeyValue
	opts := ListOptions{Revision: rev, Limit: limit}
	for {
		res, err := st.List(context.Background(), prefix, opts)
		if err != nil {
			t.Fatalf("List %s at %d: %v", prefix, rev, err)
		}
		all = append(all, res.Items...)
		if res.Continue == "" {
			return kvString(all)
		}
		opts = ListOptions{Limit: limit, Continue: res.Continue}
	}
}

// TestQueryPlansUseRanges fails when a statement would read a whole table:
// every read and write statement reaches log by its rowid (or a revision
// range) and current by its key.
func TestQueryPlansUseRanges(t *testing.T) {
	st := openInternal(t, SQLiteConfig{CompactInterval: -1})
	var queries []string
	for _, p := range (&readStmts{}).texts() {
		queries = append(queries, p.sql)
	}
	for _, p := range (&writeStmts{}).texts() {
		if !strings.HasPrefix(p.sql, "BEGIN") && p.sql != "COMMIT" && p.sql != "ROLLBACK" {
			queries = append(queries, p.sql)
		}
	}
	for _, q := range queries {
		name := strings.Join(strings.Fields(q)[:4], " ")
		vals := make([]any, placeholders(q))
		for i := range vals {
			vals[i] = int64(1)
		}
		rows, err := st.rdb.Query(`EXPLAIN QUERY PLAN `+q, vals...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		subqueries := map[string]bool{} // SCAN of one of these reads its rows, not a table
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s", name, detail)
			if sub, ok := strings.CutPrefix(detail, "CO-ROUTINE "); ok {
				subqueries[sub] = true
			}
			if scanned, ok := strings.CutPrefix(detail, "SCAN "); ok && !subqueries[scanned] {
				t.Errorf("%s: plan step %q reads a whole table", name, detail)
			}
		}
		rows.Close()
	}
}

// placeholders is how many arguments q takes: the highest ?N, or the
// number of plain ? marks.
func placeholders(q string) int {
	n := strings.Count(q, "?")
	highest := 0
	for i := 1; i <= n; i++ {
		if strings.Contains(q, fmt.Sprintf("?%d", i)) {
			highest = i
		}
	}
	if highest > 0 {
		return highest
	}
	return n
}

// TestSnapshotCarriesV1Index checks the way back: a snapshot holds the
// index, so an older bramble restoring it has the file it wrote itself;
// opening the snapshot with this code drops the index again.
func TestSnapshotCarriesV1Index(t *testing.T) {
	st := openInternal(t, SQLiteConfig{CompactInterval: -1})
	ctx := context.Background()
	if _, err := st.Create(ctx, "/s/a", []byte("1")); err != nil {
		t.Fatal(err)
	}
	rev, err := st.Create(ctx, "/s/b", []byte("2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(ctx, "/s/a", []byte("3"), rev-1); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "snap.db")
	if err := SnapshotSave(ctx, st.path, snap); err != nil {
		t.Fatal(err)
	}
	db, err := openDB(snap, url.Values{"mode": {"ro"}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := indexNames(t, db); !slices.Equal(got, []string{"log_key_rev"}) {
		t.Errorf("snapshot indexes: got %v, want [log_key_rev]", got)
	}
	if err := checkSchema(ctx, db); err != nil {
		t.Errorf("version-1 schema check of the snapshot: %v", err)
	}
	if got, want := v1List(t, db, "/s/", rev), "/s/a=1@1 /s/b=2@2"; got != want {
		t.Errorf("version-1 list of the snapshot at %d: got %q, want %q", rev, got, want)
	}
	db.Close()

	restored, err := OpenSQLite(ctx, snap, SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if got := indexNames(t, restored.rdb); len(got) != 0 {
		t.Errorf("indexes after opening the snapshot: got %v, want none", got)
	}
}
