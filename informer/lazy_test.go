package informer_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// storeCM writes a ConfigMap with data v straight to the store (so that
// every decode counted is the cache's) and returns its revision.
func (e *env) storeCM(name, v string, create bool) int64 {
	e.t.Helper()
	val := []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default"},"data":{"v":%q}}`, name, v))
	key := cmsRes.Key("default", name)
	var rev int64
	var err error
	if create {
		rev, err = e.store.Create(e.ctx, key, val)
	} else if kv, gerr := e.store.Get(e.ctx, key); gerr != nil {
		err = gerr
	} else {
		rev, err = e.store.Update(e.ctx, key, val, kv.ModRevision)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return rev
}

// caughtUp waits until the cache has applied rev.
func (e *env) caughtUp(rev int64) {
	e.t.Helper()
	if err := e.cache.AwaitRevision(e.ctx, rev); err != nil {
		e.t.Fatal(err)
	}
}

func dataOf(t *testing.T, o api.Object, ok bool) string {
	t.Helper()
	if !ok {
		t.Fatal("object not found")
	}
	return o.(*corev1.ConfigMap).Data["v"]
}

// TestQuietInformerDecodesOnFirstRead: an informer no handler follows
// decodes nothing as its objects change, then each object's newest
// version once, when it is first read; Len, Get, List and ByIndex answer
// as an eager informer does.
func TestQuietInformerDecodesOnFirstRead(t *testing.T) {
	e := newEnv(t)
	cms := e.cache.Informer(cmsRes)
	e.start()
	decodes := api.Decodes()
	for i := range 10 {
		e.storeCM(fmt.Sprintf("cm-%d", i), "one", true)
	}
	e.storeCM("cm-3", "two", false)
	rev := e.storeCM("cm-3", "three", false)
	e.caughtUp(rev)
	if d := api.Decodes() - decodes; d != 0 || cms.Len() != 10 {
		t.Fatalf("after 12 writes nobody read: got %d decodes and Len %d, want 0 and 10", d, cms.Len())
	}
	obj, ok := cms.Get("default", "cm-3")
	if got := dataOf(t, obj, ok); got != "three" || obj.GetResourceVersion() != strconv.FormatInt(rev, 10) {
		t.Fatalf("Get cm-3: got %q at %s, want three at %d", got, obj.GetResourceVersion(), rev)
	}
	if again, _ := cms.Get("default", "cm-3"); again != obj || api.Decodes()-decodes != 1 {
		t.Fatalf("a second Get: got a new object or %d decodes in all, want the same object and 1", api.Decodes()-decodes)
	}
	if n := len(cms.List("default", nil)); n != 10 || api.Decodes()-decodes != 10 {
		t.Fatalf("List: got %d objects and %d decodes in all, want 10 and 10", n, api.Decodes()-decodes)
	}
	if n := len(cms.ByIndex(informer.IndexNamespace, "default")); n != 10 || api.Decodes()-decodes != 10 {
		t.Fatalf("ByIndex: got %d objects and %d decodes in all, want 10 and 10", n, api.Decodes()-decodes)
	}
}

// TestQuietInformerSharesDecodesWithWatchers: a watcher's events of a
// quiet informer decode on demand, once, sharing the object with the
// informer; a deletion's last object carries the deletion's revision.
func TestQuietInformerSharesDecodesWithWatchers(t *testing.T) {
	e := newEnv(t)
	cms := e.cache.Informer(cmsRes)
	e.start()
	sub, ok := e.cache.Subscribe(e.cache.Revision())
	if !ok {
		t.Fatal("cannot subscribe")
	}
	defer sub.Close()
	decodes := api.Decodes()
	e.storeCM("x", "one", true)
	upd := e.storeCM("x", "two", false)
	e.caughtUp(upd)
	if _, _, err := e.store.Delete(e.ctx, cmsRes.Key("default", "x"), 0); err != nil {
		t.Fatal(err)
	}
	e.storeCM("y", "kept", true)
	evs := receive(t, sub, 4)
	if d := api.Decodes() - decodes; d != 0 {
		t.Fatalf("before anyone read: got %d decodes, want 0", d)
	}
	if evs[1].Type != informer.Modified || dataOf(t, evs[1].Object(), true) != "two" || dataOf(t, evs[1].Old(), true) != "one" {
		t.Fatalf("the update: got %v %v -> %v, want Modified one -> two", evs[1].Type, evs[1].Old(), evs[1].Object())
	}
	last := evs[2].Object()
	if evs[2].Type != informer.Deleted || dataOf(t, last, true) != "two" || last.GetResourceVersion() != strconv.FormatInt(evs[2].Rev, 10) {
		t.Fatalf("the deletion: got %v %v, want Deleted two at %d", evs[2].Type, last, evs[2].Rev)
	}
	y := evs[3].Object()
	if got, ok := cms.Get("default", "y"); got != y || !ok {
		t.Fatalf("Get y after its event was read: got %v, want the event's object", got)
	}
	if d := api.Decodes() - decodes; d != 3 {
		t.Fatalf("decodes for three versions read by a watcher and the informer: got %d, want 3", d)
	}
	if _, ok := cms.Get("default", "x"); ok || cms.Len() != 1 {
		t.Fatalf("after x's deletion: Get x found it or Len %d, want absent and 1", cms.Len())
	}
}

func receive(t *testing.T, sub *informer.Subscription, n int) []*informer.Event {
	t.Helper()
	var out []*informer.Event
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case ev := <-sub.Events():
			if ev.Type != informer.Progress {
				out = append(out, ev)
			}
		case <-timeout:
			t.Fatalf("got %d events within 10s, want %d", len(out), n)
		}
	}
	return out
}

// TestHandlerOnQuietInformerSeesEveryObject: a handler added to an
// informer that held its changes undecoded is replayed every object's
// newest version, then told each change with the object before it.
func TestHandlerOnQuietInformerSeesEveryObject(t *testing.T) {
	e := newEnv(t)
	cms := e.cache.Informer(cmsRes)
	e.start()
	e.storeCM("a", "one", true)
	e.storeCM("b", "one", true)
	e.caughtUp(e.storeCM("a", "two", false))
	got := make(chan string, 10)
	cms.AddHandler(informer.Handler{
		OnAdd: func(o api.Object) { got <- "add " + o.GetName() + " " + dataOf(t, o, true) },
		OnUpdate: func(old, cur api.Object) {
			got <- "update " + cur.GetName() + " " + dataOf(t, old, true) + "->" + dataOf(t, cur, true)
		},
	})
	e.storeCM("b", "two", false)
	want := map[string]bool{"add a two": true, "add b one": true, "update b one->two": true}
	for range want {
		select {
		case s := <-got:
			if !want[s] {
				t.Fatalf("handler told %q, want one of %v", s, want)
			}
			delete(want, s)
		case <-time.After(10 * time.Second):
			t.Fatalf("handler not told %v within 10s", want)
		}
	}
}
