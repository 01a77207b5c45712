package informer_test

import (
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// storePod writes pod name straight to the store with node and owner UID
// (either may be empty) and a label, and returns its revision.
func (e *env) storePod(name, node, owner, label string) int64 {
	e.t.Helper()
	owners := ""
	if owner != "" {
		owners = fmt.Sprintf(`,"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":%q,"controller":true}]`, owner)
	}
	val := []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":"default","labels":{"l":%q}%s},"spec":{"nodeName":%q,"containers":[{"name":"c","image":"busybox"}]}}`,
		name, label, owners, node))
	key := podsRes.Key("default", name)
	kv, err := e.store.Get(e.ctx, key)
	var rev int64
	if err != nil {
		rev, err = e.store.Create(e.ctx, key, val)
	} else {
		rev, err = e.store.Update(e.ctx, key, val, kv.ModRevision)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return rev
}

// TestIndexesFollowUpdates: an update that keeps an object's index values
// leaves it where it was; one that changes them moves it (a followed
// informer, whose updates reindex only what changed).
func TestIndexesFollowUpdates(t *testing.T) {
	e := newEnv(t)
	pods := e.cache.Informer(podsRes)
	pods.AddHandler(informer.Handler{OnUpdate: func(_, _ api.Object) {}})
	e.start()
	e.storePod("p", "", "", "a")
	e.storePod("q", "", "", "a")
	steps := []struct {
		node, owner, label string
	}{{"", "", "b"}, {"n1", "", "b"}, {"n1", "u1", "b"}, {"n2", "u2", "c"}, {"n2", "", "c"}}
	for _, st := range steps {
		e.caughtUp(e.storePod("p", st.node, st.owner, st.label))
		want := map[string]map[string]int{ // q stays unbound, unowned
			informer.IndexNode:      {"": 1, "n1": 0, "n2": 0},
			informer.IndexOwner:     {"u1": 0, "u2": 0},
			informer.IndexOrphan:    {"default": 2},
			informer.IndexNamespace: {"default": 2},
		}
		want[informer.IndexNode][st.node]++
		if st.owner != "" {
			want[informer.IndexOwner][st.owner]++
			want[informer.IndexOrphan]["default"]--
		}
		for index, values := range want {
			for v, n := range values {
				if got := len(pods.ByIndex(index, v)); got != n {
					t.Fatalf("after p became %+v: %s=%q holds %d objects, want %d", st, index, v, got, n)
				}
			}
		}
	}
}

// TestIndexesForgetRemovedObjects: a removed object leaves every index,
// under the values it was last indexed by, and an index added later holds
// the objects there are then.
func TestIndexesForgetRemovedObjects(t *testing.T) {
	e := newEnv(t)
	pods := e.cache.Informer(podsRes)
	pods.AddHandler(informer.Handler{OnUpdate: func(_, _ api.Object) {}})
	e.start()
	e.storePod("p", "n1", "u1", "a")
	e.caughtUp(e.storePod("p", "n2", "u2", "b"))
	rev, _, err := e.store.Delete(e.ctx, podsRes.Key("default", "p"), 0)
	if err != nil {
		t.Fatal(err)
	}
	e.caughtUp(rev)
	for _, iv := range [][2]string{{informer.IndexNode, "n1"}, {informer.IndexNode, "n2"}, {informer.IndexOwner, "u2"},
		{informer.IndexNamespace, "default"}} {
		if got := len(pods.ByIndex(iv[0], iv[1])); got != 0 {
			t.Errorf("%s=%q holds %d objects after the removal, want 0", iv[0], iv[1], got)
		}
	}
	e.caughtUp(e.storePod("q", "n3", "", "c"))
	pods.AddIndex("label", func(o api.Object) []string { return []string{o.GetLabels()["l"]} })
	e.caughtUp(e.storePod("q", "n3", "", "d"))
	if got, gone := len(pods.ByIndex("label", "d")), len(pods.ByIndex("label", "c")); got != 1 || gone != 0 {
		t.Errorf("label index: d holds %d, c holds %d; want 1 and 0", got, gone)
	}
}
