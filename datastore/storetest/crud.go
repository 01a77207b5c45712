package storetest

import (
	"errors"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

func (s *suite) testCreateGet(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	base := mustCurrent(t, st)
	rev := mustCreate(t, st, "/a/one", "v1")
	if rev != base+1 {
		t.Fatalf("first create: got revision %d, want %d", rev, base+1)
	}
	got, err := st.Get(ctx, "/a/one")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	checkKV(t, "Get after create", got, "/a/one", "v1", rev, rev)

	_, err = st.Create(ctx, "/a/one", []byte("v2"))
	wantErr(t, "Create of a live key", err, datastore.ErrKeyExists)
	_, err = st.Get(ctx, "/a/missing")
	wantErr(t, "Get of a missing key", err, datastore.ErrNotFound)

	empty := mustCreate(t, st, "/a/empty", "")
	got, err = st.Get(ctx, "/a/empty")
	if err != nil {
		t.Fatalf("Get empty value: %v", err)
	}
	checkKV(t, "Get empty value", got, "/a/empty", "", empty, empty)
	if cur := mustCurrent(t, st); cur != empty {
		t.Fatalf("CurrentRevision: got %d, want %d", cur, empty)
	}
}

func (s *suite) testUpdate(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	c := mustCreate(t, st, "/u/k", "v1")
	u := mustUpdate(t, st, "/u/k", "v2", c)
	if u <= c {
		t.Fatalf("update: got revision %d, want > %d", u, c)
	}
	got, err := st.Get(ctx, "/u/k")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	checkKV(t, "Get after update", got, "/u/k", "v2", c, u)

	_, err = st.Update(ctx, "/u/k", []byte("stale"), c)
	wantErr(t, "Update with a stale revision", err, datastore.ErrConflict)
	_, err = st.Update(ctx, "/u/missing", []byte("x"), 1)
	wantErr(t, "Update of a missing key", err, datastore.ErrNotFound)

	d := mustDelete(t, st, "/u/k", u)
	_, err = st.Update(ctx, "/u/k", []byte("x"), d)
	wantErr(t, "Update of a deleted key", err, datastore.ErrNotFound)
	got, err = st.Get(ctx, "/u/k")
	wantErr(t, "Get after failed updates", err, datastore.ErrNotFound)
	if got != nil {
		t.Fatalf("Get of a deleted key: got %s, want nil", fmtKV(got))
	}
}

func (s *suite) testDelete(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	c := mustCreate(t, st, "/d/k", "v1")
	u := mustUpdate(t, st, "/d/k", "v2", c)

	_, _, err := st.Delete(ctx, "/d/k", c)
	wantErr(t, "Delete with a stale revision", err, datastore.ErrConflict)
	d, prev, err := st.Delete(ctx, "/d/k", 0)
	if err != nil {
		t.Fatalf("Delete with revision 0: %v", err)
	}
	if d <= u {
		t.Fatalf("delete: got revision %d, want > %d", d, u)
	}
	checkKV(t, "value returned by Delete", prev, "/d/k", "v2", c, u)
	_, err = st.Get(ctx, "/d/k")
	wantErr(t, "Get after delete", err, datastore.ErrNotFound)
	_, _, err = st.Delete(ctx, "/d/k", 0)
	wantErr(t, "Delete of a deleted key", err, datastore.ErrNotFound)

	re := mustCreate(t, st, "/d/k", "again")
	got, err := st.Get(ctx, "/d/k")
	if err != nil {
		t.Fatalf("Get after re-create: %v", err)
	}
	checkKV(t, "re-created key", got, "/d/k", "again", re, re)
	if _, _, err := st.Delete(ctx, "/d/k", re); err != nil {
		t.Fatalf("Delete with the matching revision: %v", err)
	}
}

// testRevisionsContiguous checks that every successful write takes exactly
// the next revision and that failed writes take none.
func (s *suite) testRevisionsContiguous(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	want := mustCurrent(t, st) + 1
	check := func(what string, rev int64) {
		t.Helper()
		if rev != want {
			t.Fatalf("%s: got revision %d, want %d", what, rev, want)
		}
		want++
	}
	c := mustCreate(t, st, "/r/a", "1")
	check("create", c)
	if _, err := st.Create(ctx, "/r/a", nil); !errors.Is(err, datastore.ErrKeyExists) {
		t.Fatalf("duplicate create: got %v, want ErrKeyExists", err)
	}
	u := mustUpdate(t, st, "/r/a", "2", c)
	check("update after a failed create", u)
	if _, err := st.Update(ctx, "/r/a", nil, c); !errors.Is(err, datastore.ErrConflict) {
		t.Fatalf("stale update: got %v, want ErrConflict", err)
	}
	check("create after a failed update", mustCreate(t, st, "/r/b", "1"))
	check("delete", mustDelete(t, st, "/r/a", u))
	if cur := mustCurrent(t, st); cur != want-1 {
		t.Fatalf("CurrentRevision: got %d, want %d", cur, want-1)
	}
}

func (s *suite) testInvalidKeys(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	for _, key := range []string{"", "bad\x00key", "bad\xffutf8"} {
		if _, err := st.Create(ctx, key, []byte("v")); !errors.Is(err, datastore.ErrInvalid) {
			t.Errorf("Create(%q): got %v, want ErrInvalid", key, err)
		}
		if _, err := st.Get(ctx, key); !errors.Is(err, datastore.ErrInvalid) {
			t.Errorf("Get(%q): got %v, want ErrInvalid", key, err)
		}
	}
	if cur := mustCurrent(t, st); cur != 0 {
		t.Fatalf("CurrentRevision after rejected writes: got %d, want 0", cur)
	}
}

func (s *suite) testClosed(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	mustCreate(t, st, "/c/k", "v")
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err := st.Create(ctx, "/c/other", nil)
	wantErr(t, "Create after Close", err, datastore.ErrClosed)
	_, err = st.Get(ctx, "/c/k")
	wantErr(t, "Get after Close", err, datastore.ErrClosed)
	_, err = st.List(ctx, "/c/", datastore.ListOptions{})
	wantErr(t, "List after Close", err, datastore.ErrClosed)
	_, err = st.Watch(ctx, "/c/", 0)
	wantErr(t, "Watch after Close", err, datastore.ErrClosed)
}
