package apiserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// watchEvent is one decoded line of a watch stream.
type watchEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

// watcher reads a watch stream in the background.
type watcher struct {
	events chan watchEvent
	done   chan error // the stream's end: nil for a clean EOF
	cancel context.CancelFunc
}

// eventWait bounds how long a test waits for an event that must come.
const eventWait = 10 * time.Second

func (e *testEnv) watch(t *testing.T, path, accept string) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hr, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+path, nil)
	hr.Header.Set("Authorization", "Bearer admin-token")
	if accept != "" {
		hr.Header.Set("Accept", accept)
	}
	resp, err := e.client.Do(hr)
	if err != nil {
		cancel()
		t.Fatalf("watch %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("watch %s: got HTTP %d, want 200: %s", path, resp.StatusCode, body)
	}
	w := &watcher{events: make(chan watchEvent, 100), done: make(chan error, 1), cancel: cancel}
	go w.read(resp)
	t.Cleanup(cancel)
	return w
}

func (w *watcher) read(resp *http.Response) {
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var ev watchEvent
		if err := dec.Decode(&ev); err != nil {
			if err == io.EOF {
				err = nil
			}
			w.done <- err
			close(w.events)
			return
		}
		w.events <- ev
	}
}

// next returns the next event and checks its type and object name.
func (w *watcher) next(t *testing.T, typ, name string) watchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.events:
		if !ok {
			t.Fatalf("watch ended, want %s %s", typ, name)
		}
		got := jget(ev.Object, "metadata.name")
		if ev.Type != typ || got != name {
			t.Fatalf("got event %s %v, want %s %s", ev.Type, got, typ, name)
		}
		if ev.Object["kind"] == nil || ev.Object["apiVersion"] == nil {
			t.Fatalf("event object lacks kind/apiVersion: %v", ev.Object)
		}
		return ev
	case <-time.After(eventWait):
		t.Fatalf("no event within %v, want %s %s", eventWait, typ, name)
	}
	return watchEvent{}
}

func TestWatchFromZeroStartsWithSyntheticAdded(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "a")).must(t, http.StatusCreated)
	e.post(cmPath, manifest(t, "configmaps", "b")).must(t, http.StatusCreated)
	w := e.watch(t, cmPath+"?watch=true&resourceVersion=0", "")
	w.next(t, "ADDED", "a")
	w.next(t, "ADDED", "b")
	e.post(cmPath, manifest(t, "configmaps", "c")).must(t, http.StatusCreated)
	w.next(t, "ADDED", "c")
}

func TestWatchFromRevisionSendsOnlyLaterChanges(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "old")).must(t, http.StatusCreated)
	rv := jget(e.get(cmPath).must(t, http.StatusOK).obj(t), "metadata.resourceVersion").(string)
	w := e.watch(t, cmPath+"?watch=true&resourceVersion="+rv, "")
	e.post(cmPath, manifest(t, "configmaps", "new")).must(t, http.StatusCreated)
	w.next(t, "ADDED", "new") // not "old": no synthetic events after a revision
	e.patch(cmPath+"/new", mediaMergePatch, `{"data":{"k":"changed"}}`).must(t, http.StatusOK)
	ev := w.next(t, "MODIFIED", "new")
	if jget(ev.Object, "data.k") != "changed" {
		t.Fatalf("got data %v in MODIFIED, want k=changed", ev.Object["data"])
	}
	e.delete(cmPath+"/new").must(t, http.StatusOK)
	w.next(t, "DELETED", "new")
}

func TestWatchSelectorAddsAndDeletes(t *testing.T) {
	e := newTestEnv(t)
	w := e.watch(t, cmPath+"?watch=true&resourceVersion=1&labelSelector=app%3Dx", "")
	e.post(cmPath, cmJSON("y", nil, map[string]string{"app": "y"})).must(t, http.StatusCreated)
	e.patch(cmPath+"/y", mediaMergePatch, `{"metadata":{"labels":{"app":"x"}}}`).must(t, http.StatusOK)
	ev := w.next(t, "ADDED", "y") // the create of app=y sent nothing
	if jget(ev.Object, "metadata.labels.app") != "x" {
		t.Fatalf("got labels %v on ADDED, want app=x", jget(ev.Object, "metadata.labels"))
	}
	e.patch(cmPath+"/y", mediaMergePatch, `{"metadata":{"labels":{"app":"z"}}}`).must(t, http.StatusOK)
	ev = w.next(t, "DELETED", "y")
	if jget(ev.Object, "metadata.labels.app") != "x" {
		t.Fatalf("got labels %v on DELETED, want the last matching state app=x", jget(ev.Object, "metadata.labels"))
	}
	e.post(cmPath, cmJSON("x2", nil, map[string]string{"app": "x"})).must(t, http.StatusCreated)
	w.next(t, "ADDED", "x2")
}

func TestWatchCompactedRevisionIsGone(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "a")).must(t, http.StatusCreated)
	for i := 0; i < 3; i++ {
		e.patch(cmPath+"/a", mediaMergePatch, `{"data":{"k":"`+string(rune('a'+i))+`"}}`).must(t, http.StatusOK)
	}
	ctx := context.Background()
	cur, err := e.store.CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Compact(ctx, cur); err != nil {
		t.Fatalf("compact: %v", err)
	}
	st := e.get(cmPath+"?watch=true&resourceVersion=2").status(t, http.StatusGone, metav1.StatusReasonExpired)
	if st.Message == "" {
		t.Fatal("410 Status has no message")
	}
	e.get(cmPath+"?resourceVersion=2&resourceVersionMatch=Exact").status(t, http.StatusGone, metav1.StatusReasonExpired)
}

func TestWatchTimeoutEndsStream(t *testing.T) {
	e := newTestEnv(t)
	w := e.watch(t, cmPath+"?watch=true&timeoutSeconds=1", "")
	select {
	case err := <-w.done:
		if err != nil {
			t.Fatalf("got stream error %v, want a clean end", err)
		}
	case <-time.After(eventWait):
		t.Fatal("watch with timeoutSeconds=1 still open")
	}
}

func TestWatchSingleObjectByName(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "a")).must(t, http.StatusCreated)
	e.post(cmPath, manifest(t, "configmaps", "b")).must(t, http.StatusCreated)
	w := e.watch(t, cmPath+"?fieldSelector=metadata.name%3Db&resourceVersion=0&watch=true", "")
	w.next(t, "ADDED", "b")
	e.patch(cmPath+"/a", mediaMergePatch, `{"data":{"k":"1"}}`).must(t, http.StatusOK)
	e.patch(cmPath+"/b", mediaMergePatch, `{"data":{"k":"1"}}`).must(t, http.StatusOK)
	w.next(t, "MODIFIED", "b")
}

func TestWatchTablesSendColumnsOnce(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "a")).must(t, http.StatusCreated)
	w := e.watch(t, cmPath+"?watch=true&resourceVersion=0", tableAccept)
	first := <-w.events
	if first.Type != "ADDED" || first.Object["kind"] != "Table" || first.Object["columnDefinitions"] == nil {
		t.Fatalf("got first event %s %v, want ADDED Table with columnDefinitions", first.Type, first.Object)
	}
	e.post(cmPath, manifest(t, "configmaps", "b")).must(t, http.StatusCreated)
	var second watchEvent
	select {
	case second = <-w.events:
	case <-time.After(eventWait):
		t.Fatal("no second table event")
	}
	if second.Object["kind"] != "Table" || second.Object["columnDefinitions"] != nil {
		t.Fatalf("got second event %v, want a Table without columnDefinitions", second.Object)
	}
	rows := second.Object["rows"].([]any)
	if len(rows) != 1 || jget(rows[0].(map[string]any), "object.metadata.name") != "b" {
		t.Fatalf("got rows %v, want one row for b", rows)
	}
}
