package storetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// history writes a mix of creates, updates and deletes and returns the
// model, with the revision to compact at in the middle of it.
func history(t testing.TB, st datastore.Store) (*model, int64) {
	t.Helper()
	m := newModel()
	m.apply(t, st, "create", "/k/a", "a1")
	m.apply(t, st, "create", "/k/b", "b1")
	m.apply(t, st, "update", "/k/a", "a2")
	m.apply(t, st, "create", "/k/gone", "g")
	m.apply(t, st, "update", "/k/a", "a3")
	m.apply(t, st, "delete", "/k/gone", "")
	m.apply(t, st, "create", "/k/c", "c1")
	mid := m.apply(t, st, "update", "/k/b", "b2")
	m.apply(t, st, "update", "/k/a", "a4")
	m.apply(t, st, "delete", "/k/c", "")
	m.apply(t, st, "create", "/k/d", "d1")
	m.apply(t, st, "update", "/k/b", "b3")
	return m, mid
}

func (s *suite) testCompact(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	m, mid := history(t, st)
	if err := st.Compact(ctx, mid); err != nil {
		t.Fatalf("Compact(%d): %v", mid, err)
	}
	if got, err := st.CompactRevision(ctx); err != nil || got != mid {
		t.Fatalf("CompactRevision: got %d (err %v), want %d", got, err, mid)
	}
	for rev := mid; rev <= m.last; rev++ {
		items, _ := listAll(t, st, "/k/", datastore.ListOptions{Revision: rev, Limit: 2})
		checkList(t, fmt.Sprintf("List at %d after compacting to %d", rev, mid), items, m.at(rev))
	}
	_, err := st.List(ctx, "/k/", datastore.ListOptions{Revision: mid - 1})
	wantErr(t, "List before the compact revision", err, datastore.ErrCompacted)
	_, err = st.Watch(ctx, "/k/", mid-1)
	wantErr(t, "Watch before the compact revision", err, datastore.ErrCompacted)
	ch, err := st.Watch(ctx, "/k/", mid)
	if err != nil {
		t.Fatalf("Watch at the compact revision: %v", err)
	}
	want := m.eventsAfter(mid)
	checkEvents(t, "replay after compaction", collect(t, ch, len(want)), want)
}

// testCompactAll compacts to the newest revision: only live keys' latest
// values remain, and they are intact.
func (s *suite) testCompactAll(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	m, _ := history(t, st)
	if err := st.Compact(ctx, m.last); err != nil {
		t.Fatalf("Compact(%d): %v", m.last, err)
	}
	items, _ := listAll(t, st, "/k/", datastore.ListOptions{})
	checkList(t, "latest List after compacting everything", items, m.at(m.last))
	for key, kv := range m.live {
		got, err := st.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get(%q) after compaction: %v", key, err)
		}
		checkKV(t, "Get after compaction", got, key, string(kv.Value), kv.CreateRevision, kv.ModRevision)
	}
	for _, key := range []string{"/k/gone", "/k/c"} {
		_, err := st.Get(ctx, key)
		wantErr(t, "Get of a deleted key after compaction", err, datastore.ErrNotFound)
	}
}

// testCompactDeletedLast compacts away a delete that is the newest write:
// the revision must not go back, and the next write continues after it.
func (s *suite) testCompactDeletedLast(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	c := mustCreate(t, st, "/l/a", "1")
	d := mustDelete(t, st, "/l/a", c)
	if err := st.Compact(ctx, d); err != nil {
		t.Fatalf("Compact(%d): %v", d, err)
	}
	if cur := mustCurrent(t, st); cur != d {
		t.Fatalf("CurrentRevision after compacting the last delete: got %d, want %d", cur, d)
	}
	res, err := st.List(ctx, "/l/", datastore.ListOptions{})
	if err != nil || len(res.Items) != 0 || res.Revision != d {
		t.Fatalf("List after compaction: got %v at %d (err %v), want nothing at %d", keysOf(res.Items), res.Revision, err, d)
	}
	if rev := mustCreate(t, st, "/l/a", "2"); rev != d+1 {
		t.Fatalf("create after compaction: got revision %d, want %d", rev, d+1)
	}
}

func (s *suite) testCompactErrors(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	_, mid := history(t, st)
	cur := mustCurrent(t, st)
	wantErr(t, "Compact at a future revision", st.Compact(ctx, cur+1), datastore.ErrFutureRevision)
	if err := st.Compact(ctx, mid); err != nil {
		t.Fatalf("Compact(%d): %v", mid, err)
	}
	if err := st.Compact(ctx, mid); err != nil {
		t.Fatalf("Compact(%d) again: got %v, want nil", mid, err)
	}
	wantErr(t, "Compact below the compact revision", st.Compact(ctx, mid-1), datastore.ErrCompacted)
}

func (s *suite) testSnapshotRoundTrip(t *testing.T) {
	if s.restore == nil {
		t.Fatal("storetest.Run needs storetest.WithRestore to round-trip snapshots")
	}
	st := s.open(t)
	ctx := ctxFor(t)
	m, mid := history(t, st)
	if err := st.Compact(ctx, mid); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	var buf bytes.Buffer
	if err := st.Snapshot(ctx, &buf); err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	mustCreate(t, st, "/k/after-snapshot", "x")

	restored := s.restore(t, buf.Bytes())
	if cur := mustCurrent(t, restored); cur != m.last {
		t.Fatalf("restored CurrentRevision: got %d, want %d", cur, m.last)
	}
	if got, err := restored.CompactRevision(ctx); err != nil || got != mid {
		t.Fatalf("restored CompactRevision: got %d (err %v), want %d", got, err, mid)
	}
	for rev := mid; rev <= m.last; rev++ {
		items, _ := listAll(t, restored, "/k/", datastore.ListOptions{Revision: rev})
		checkList(t, fmt.Sprintf("restored List at %d", rev), items, m.at(rev))
	}
	ch, err := restored.Watch(ctx, "/k/", mid)
	if err != nil {
		t.Fatalf("Watch on the restored store: %v", err)
	}
	want := m.eventsAfter(mid)
	checkEvents(t, "restored replay", collect(t, ch, len(want)), want)
	if rev := mustCreate(t, restored, "/k/new", "n"); rev != m.last+1 {
		t.Fatalf("first write after restore: got revision %d, want %d", rev, m.last+1)
	}
}
