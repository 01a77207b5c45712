package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// listAll lists prefix page by page and returns every item and the
// revision of the first page.
func listAll(t testing.TB, st datastore.Store, prefix string, opts datastore.ListOptions) ([]*datastore.KeyValue, int64) {
	t.Helper()
	var all []*datastore.KeyValue
	var rev int64
	for page := 0; ; page++ {
		res, err := st.List(ctxFor(t), prefix, opts)
		if err != nil {
			t.Fatalf("List(%q, %+v) page %d: %v", prefix, opts, page, err)
		}
		if page == 0 {
			rev = res.Revision
		} else if res.Revision != rev {
			t.Fatalf("List page %d: got revision %d, want %d (the first page's)", page, res.Revision, rev)
		}
		all = append(all, res.Items...)
		if res.Continue == "" {
			return all, rev
		}
		if opts.Limit > 0 && int64(len(res.Items)) != opts.Limit {
			t.Fatalf("List page %d: got %d items with a continue token, want %d", page, len(res.Items), opts.Limit)
		}
		opts.Continue = res.Continue
	}
}

// keysOf renders items as "key=value@mod" for comparisons.
func keysOf(items []*datastore.KeyValue) []string {
	out := make([]string, len(items))
	for i, kv := range items {
		out[i] = fmt.Sprintf("%s=%s@%d", kv.Key, kv.Value, kv.ModRevision)
	}
	return out
}

func checkList(t testing.TB, what string, got []*datastore.KeyValue, want []string) {
	t.Helper()
	if g := keysOf(got); !slices.Equal(g, want) {
		t.Fatalf("%s:\n got  %v\n want %v", what, g, want)
	}
}

func (s *suite) testListPrefix(t *testing.T) {
	st := s.open(t)
	a := mustCreate(t, st, "/reg/pods/ns1/a", "pa")
	b := mustCreate(t, st, "/reg/pods/ns1/b", "pb")
	mustCreate(t, st, "/reg/pods/ns2/c", "pc")
	mustCreate(t, st, "/reg/podsX/ns1/z", "other resource")
	mustCreate(t, st, "/reg/nodes/n1", "node")
	gone := mustCreate(t, st, "/reg/pods/ns1/gone", "x")
	mustDelete(t, st, "/reg/pods/ns1/gone", gone)
	b2 := mustUpdate(t, st, "/reg/pods/ns1/b", "pb2", b)

	items, rev := listAll(t, st, "/reg/pods/ns1/", datastore.ListOptions{})
	checkList(t, "List /reg/pods/ns1/", items, []string{
		fmt.Sprintf("/reg/pods/ns1/a=pa@%d", a), fmt.Sprintf("/reg/pods/ns1/b=pb2@%d", b2)})
	if cur := mustCurrent(t, st); rev != cur {
		t.Fatalf("List revision: got %d, want the current %d", rev, cur)
	}
	items, _ = listAll(t, st, "/reg/pods/", datastore.ListOptions{})
	if len(items) != 3 {
		t.Fatalf("List /reg/pods/: got %v, want 3 pods", keysOf(items))
	}
	items, _ = listAll(t, st, "", datastore.ListOptions{})
	if len(items) != 5 {
		t.Fatalf("List of everything: got %v, want 5 keys", keysOf(items))
	}
	if !slices.IsSortedFunc(items, func(x, y *datastore.KeyValue) int { return compareStrings(x.Key, y.Key) }) {
		t.Fatalf("List of everything: got %v, want key order", keysOf(items))
	}
	items, _ = listAll(t, st, "/nothing/", datastore.ListOptions{})
	if len(items) != 0 {
		t.Fatalf("List of an empty prefix: got %v, want none", keysOf(items))
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *suite) testListPaging(t *testing.T) {
	st := s.open(t)
	var want []string
	for i := range 25 {
		key := fmt.Sprintf("/p/k%02d", i)
		want = append(want, fmt.Sprintf("%s=v@%d", key, mustCreate(t, st, key, "v")))
	}
	mustCreate(t, st, "/q/outside", "v")
	for _, limit := range []int64{1, 7, 25, 26, 100} {
		items, _ := listAll(t, st, "/p/", datastore.ListOptions{Limit: limit})
		checkList(t, fmt.Sprintf("paged list, limit %d", limit), items, want)
	}
	res, err := st.List(ctxFor(t), "/p/", datastore.ListOptions{Limit: 10})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if res.Continue == "" || res.Remaining != 15 {
		t.Fatalf("first page of 10: got continue %q, remaining %d; want a token and 15", res.Continue, res.Remaining)
	}
	res, err = st.List(ctxFor(t), "/p/", datastore.ListOptions{Limit: 25})
	if err != nil || res.Continue != "" || res.Remaining != 0 {
		t.Fatalf("list of exactly limit items: got continue %q, remaining %d, err %v; want none", res.Continue, res.Remaining, err)
	}
}

// testListPagingAcrossWrites checks that later pages are read at the first
// page's revision, whatever is written in between.
func (s *suite) testListPagingAcrossWrites(t *testing.T) {
	st := s.open(t)
	revs := map[string]int64{}
	var want []string
	for i := range 12 {
		key := fmt.Sprintf("/w/k%02d", i)
		revs[key] = mustCreate(t, st, key, "v")
		want = append(want, fmt.Sprintf("%s=v@%d", key, revs[key]))
	}
	res, err := st.List(ctxFor(t), "/w/", datastore.ListOptions{Limit: 5})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	got := res.Items
	mustDelete(t, st, "/w/k08", 0)
	mustUpdate(t, st, "/w/k10", "changed", revs["/w/k10"])
	mustCreate(t, st, "/w/k06a", "new")
	mustDelete(t, st, "/w/k02", 0)
	rest, _ := listAll(t, st, "/w/", datastore.ListOptions{Limit: 5, Continue: res.Continue})
	checkList(t, "pages with writes in between", append(got, rest...), want)

	_, err = st.List(ctxFor(t), "/w/", datastore.ListOptions{Continue: res.Continue, Revision: res.Revision + 1})
	wantErr(t, "continue token with another revision", err, datastore.ErrInvalid)
}

// testListAtRevision replays a history and checks List at every revision
// against a model of the state after each write.
func (s *suite) testListAtRevision(t *testing.T) {
	st := s.open(t)
	m := newModel()
	m.apply(t, st, "create", "/h/a", "1")
	m.apply(t, st, "create", "/h/b", "1")
	m.apply(t, st, "update", "/h/a", "2")
	m.apply(t, st, "create", "/h/c", "1")
	m.apply(t, st, "delete", "/h/b", "")
	m.apply(t, st, "update", "/h/c", "2")
	m.apply(t, st, "create", "/h/b", "again")
	m.apply(t, st, "delete", "/h/a", "")
	for rev := m.first; rev <= m.last; rev++ {
		items, got := listAll(t, st, "/h/", datastore.ListOptions{Revision: rev, Limit: 1})
		if got != rev {
			t.Fatalf("List at %d: got revision %d", rev, got)
		}
		checkList(t, fmt.Sprintf("List at revision %d", rev), items, m.at(rev))
	}
	_, err := st.List(ctxFor(t), "/h/", datastore.ListOptions{Revision: m.last + 1})
	wantErr(t, "List at a future revision", err, datastore.ErrFutureRevision)
}

func (s *suite) testListBadInput(t *testing.T) {
	st := s.open(t)
	for i := range 3 {
		mustCreate(t, st, fmt.Sprintf("/b/k%d", i), "v")
	}
	ctx := ctxFor(t)
	res, err := st.List(ctx, "/b/", datastore.ListOptions{Limit: 1})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for name, opts := range map[string]datastore.ListOptions{
		"garbage token":           {Continue: "not a token!"},
		"token of another prefix": {Continue: res.Continue, Limit: 1},
		"negative limit":          {Limit: -1},
		"negative revision":       {Revision: -2},
	} {
		prefix := "/b/"
		if name == "token of another prefix" {
			prefix = "/other/"
		}
		_, err := st.List(ctx, prefix, opts)
		if !errors.Is(err, datastore.ErrInvalid) {
			t.Errorf("List with %s: got %v, want ErrInvalid", name, err)
		}
	}
}
