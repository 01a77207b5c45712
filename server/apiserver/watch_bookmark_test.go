package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore/storetest"
	"github.com/bramble-edge/bramble/server/registry"
)

const secretPath = "/api/v1/namespaces/default/secrets"

// fastBookmarks makes a test API send bookmarks every 50 ms.
func fastBookmarks(c *APIConfig) { c.BookmarkInterval = 50 * time.Millisecond }

// any returns the next event of any type.
func (w *watcher) any(t *testing.T) watchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.events:
		if !ok {
			t.Fatal("watch ended, want an event")
		}
		return ev
	case <-time.After(eventWait):
		t.Fatalf("no event within %v", eventWait)
	}
	return watchEvent{}
}

// bookmarkAtLeast skips bookmarks until one at rev or later comes; no
// other event may come first.
func (w *watcher) bookmarkAtLeast(t *testing.T, rev int64) watchEvent {
	t.Helper()
	for {
		ev := w.any(t)
		if ev.Type != "BOOKMARK" {
			t.Fatalf("got %s %v, want a BOOKMARK", ev.Type, ev.Object)
		}
		if rvOf(t, ev) >= rev {
			return ev
		}
	}
}

func rvOf(t *testing.T, ev watchEvent) int64 {
	t.Helper()
	rv, err := strconv.ParseInt(fmt.Sprint(jget(ev.Object, "metadata.resourceVersion")), 10, 64)
	if err != nil {
		t.Fatalf("event %s: resourceVersion %v: %v", ev.Type, jget(ev.Object, "metadata.resourceVersion"), err)
	}
	return rv
}

// secretRev creates a Secret (outside the watched resource) and returns the
// store's revision after it.
func (e *testEnv) secretRev(t *testing.T, name string) int64 {
	t.Helper()
	e.post(secretPath, manifest(t, "secrets", name)).must(t, http.StatusCreated)
	rev, err := e.store.CurrentRevision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// A watch that allows bookmarks gets them with the store's progress, also
// when only other resources change; events are never overtaken by them.
func TestWatchBookmarksCarryProgress(t *testing.T) {
	e := newTestEnv(t, fastBookmarks)
	e.post(cmPath, manifest(t, "configmaps", "a")).must(t, http.StatusCreated)
	rv := jget(e.get(cmPath).must(t, http.StatusOK).obj(t), "metadata.resourceVersion").(string)
	w := e.watch(t, cmPath+"?watch=true&allowWatchBookmarks=true&resourceVersion="+rv, "")
	plain := e.watch(t, cmPath+"?watch=true&resourceVersion="+rv, "")
	ev := w.bookmarkAtLeast(t, e.secretRev(t, "s1"))
	if ev.Object["kind"] != "ConfigMap" || ev.Object["apiVersion"] != "v1" || len(ev.Object) != 3 {
		t.Fatalf("bookmark object: got %v, want a ConfigMap with only its resourceVersion", ev.Object)
	}
	b := e.post(cmPath, manifest(t, "configmaps", "b")).must(t, http.StatusCreated).obj(t)
	bRev, _ := strconv.ParseInt(jget(b, "metadata.resourceVersion").(string), 10, 64)
	for {
		ev := w.any(t)
		if ev.Type == "ADDED" && jget(ev.Object, "metadata.name") == "b" {
			break
		}
		if ev.Type != "BOOKMARK" || rvOf(t, ev) >= bRev {
			t.Fatalf("before ADDED b (at %d): got %s at %d, want only bookmarks older than b", bRev, ev.Type, rvOf(t, ev))
		}
	}
	w.bookmarkAtLeast(t, e.secretRev(t, "s2"))
	plain.next(t, "ADDED", "b") // no bookmark for a watch that did not ask
}

// The last bookmark goes out shortly before the watch times out, whatever
// the interval, so the client resumes from a fresh revision.
func TestWatchBookmarkBeforeTimeout(t *testing.T) {
	e := newTestEnv(t)
	rev := e.secretRev(t, "s1")
	w := e.watch(t, cmPath+"?watch=true&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=1", "")
	if ev := w.any(t); ev.Type != "BOOKMARK" || rvOf(t, ev) < rev {
		t.Fatalf("got %s %v, want a BOOKMARK at >= %d before the timeout", ev.Type, ev.Object, rev)
	}
	if err := <-w.done; err != nil {
		t.Fatalf("stream end: %v", err)
	}
}

// A watch from a resourceVersion the store has not reached is accepted and
// waits, as upstream's watch cache does: it gets neither events nor
// bookmarks until the store passes that revision.
func TestWatchFromFutureRevisionWaits(t *testing.T) {
	e := newTestEnv(t, fastBookmarks)
	cur, _ := e.store.CurrentRevision(context.Background())
	future := cur + 3
	w := e.watch(t, cmPath+"?watch=true&allowWatchBookmarks=true&resourceVersion="+registry.FormatResourceVersion(future), "")
	for _, name := range []string{"x", "y", "z"} { // revisions cur+1 .. cur+3 = future
		e.post(cmPath, manifest(t, "configmaps", name)).must(t, http.StatusCreated)
	}
	select {
	case ev := <-w.events:
		t.Fatalf("before the store passed %d: got %s %v, want nothing", future, ev.Type, ev.Object)
	case <-time.After(300 * time.Millisecond):
	}
	e.post(cmPath, manifest(t, "configmaps", "after")).must(t, http.StatusCreated)
	w.next(t, "ADDED", "after")
	w.bookmarkAtLeast(t, future+1)
}

// A watch-list (sendInitialEvents=true) starts with the current objects,
// then a bookmark annotated k8s.io/initial-events-end at their revision.
func TestWatchListEndsInitialEventsWithABookmark(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "a")).must(t, http.StatusCreated)
	e.post(cmPath, manifest(t, "configmaps", "b")).must(t, http.StatusCreated)
	cur, _ := e.store.CurrentRevision(context.Background())
	w := e.watch(t, cmPath+"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "")
	w.next(t, "ADDED", "a")
	w.next(t, "ADDED", "b")
	ev := w.any(t)
	ann, _ := jget(ev.Object, "metadata.annotations").(map[string]any)
	if ev.Type != "BOOKMARK" || rvOf(t, ev) != cur || ann["k8s.io/initial-events-end"] != "true" {
		t.Fatalf("got %s %v, want a BOOKMARK at %d annotated k8s.io/initial-events-end=true", ev.Type, ev.Object, cur)
	}
	e.patch(cmPath+"/a", mediaMergePatch, `{"data":{"k":"1"}}`).must(t, http.StatusOK)
	w.next(t, "MODIFIED", "a")
	e.get(cmPath+"?watch=true&sendInitialEvents=true").status(t, http.StatusBadRequest, "BadRequest")
}

// A watch-list from a resourceVersion the store does not reach within 3 s
// ends with upstream's 504 "Too large resource version", in the stream.
func TestWatchListFromFutureRevisionTimesOut(t *testing.T) {
	e := newTestEnv(t)
	cur, _ := e.store.CurrentRevision(context.Background())
	future := cur + 100
	w := e.watch(t, cmPath+"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion="+registry.FormatResourceVersion(future), "")
	ev := w.any(t)
	want := fmt.Sprintf("Too large resource version: %d, current: %d", future, cur)
	if ev.Type != "ERROR" || ev.Object["kind"] != "Status" || jget(ev.Object, "code") != float64(http.StatusGatewayTimeout) ||
		ev.Object["reason"] != "Timeout" || ev.Object["message"] != want ||
		jget(ev.Object, "details.retryAfterSeconds") != float64(1) {
		t.Fatalf("got %s %v, want an ERROR with the 504 Timeout Status %q", ev.Type, ev.Object, want)
	}
	causes, _ := jget(ev.Object, "details.causes").([]any)
	if len(causes) != 1 || causes[0].(map[string]any)["reason"] != "ResourceVersionTooLarge" {
		t.Fatalf("causes: got %v, want one ResourceVersionTooLarge", causes)
	}
	if err := <-w.done; err != nil {
		t.Fatalf("stream end: %v", err)
	}
}

// A watch whose resume point is compacted after the store cut it off ends
// with an ERROR carrying 410 Expired, and the client lists again.
func TestWatchEndsWithGoneWhenCompactedMidStream(t *testing.T) {
	var faults *storetest.Faults
	e := newTestEnv(t, func(c *APIConfig) {
		faults = storetest.NewFaults(c.Store)
		c.Store, c.Cache = faults, nil // the datastore's watch path
	})
	rev := e.secretRev(t, "s0")
	w := e.watch(t, cmPath+"?watch=true&resourceVersion="+registry.FormatResourceVersion(rev), "")
	e.post(cmPath, manifest(t, "configmaps", "a")).must(t, http.StatusCreated)
	w.next(t, "ADDED", "a")
	faults.FailWatches(cmPrefix, 1<<20, errors.New("injected watch failure"))
	if faults.CutWatches(cmPrefix) != 1 {
		t.Fatal("want the watch cut off")
	}
	e.post(cmPath, manifest(t, "configmaps", "b")).must(t, http.StatusCreated)
	ctx := context.Background()
	if err := e.store.Compact(ctx, e.secretRev(t, "s1")); err != nil {
		t.Fatal(err)
	}
	faults.Heal(cmPrefix)
	ev := w.any(t)
	if ev.Type != "ERROR" || jget(ev.Object, "code") != float64(http.StatusGone) || ev.Object["reason"] != "Expired" {
		t.Fatalf("got %s %v, want an ERROR with the 410 Expired Status", ev.Type, ev.Object)
	}
	if err := <-w.done; err != nil {
		t.Fatalf("stream end: %v", err)
	}
}

const cmPrefix = "/registry/core/configmaps/default/"

// The same through the shared cache: its own watch is cut off and falls
// behind compaction, so it lists again and cuts its subscribers off; the
// HTTP watch goes on from the datastore, finds its resume point compacted
// and ends with 410 Expired.
func TestCacheWatchEndsWithGoneWhenCompactedMidStream(t *testing.T) {
	var faults *storetest.Faults
	e := newTestEnv(t, func(c *APIConfig) { faults = storetest.NewFaults(c.Store); c.Store = faults })
	rev := e.secretRev(t, "s0")
	w := e.watch(t, cmPath+"?watch=true&resourceVersion="+registry.FormatResourceVersion(rev), "")
	e.post(cmPath, manifest(t, "configmaps", "a")).must(t, http.StatusCreated)
	w.next(t, "ADDED", "a")
	if n := faults.CutWatches(cmPrefix); n != 0 {
		t.Fatalf("%d datastore watches of the ConfigMaps: want the HTTP watch fed by the cache", n)
	}
	faults.FailWatches("/registry/", 1<<20, errors.New("injected watch failure"))
	if faults.CutWatches("/registry/") != 1 {
		t.Fatal("want the cache's watch cut off")
	}
	e.post(cmPath, manifest(t, "configmaps", "b")).must(t, http.StatusCreated)
	if err := e.store.Compact(context.Background(), e.secretRev(t, "s1")); err != nil {
		t.Fatal(err)
	}
	faults.Heal("/registry/")
	ev := w.any(t)
	if ev.Type != "ERROR" || jget(ev.Object, "code") != float64(http.StatusGone) || ev.Object["reason"] != "Expired" {
		t.Fatalf("got %s %v, want an ERROR with the 410 Expired Status", ev.Type, ev.Object)
	}
}
