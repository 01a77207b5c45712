package apiserver

import (
	"encoding/json"
	"net/http"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/registry"
)

// Watch event types.
const (
	eventAdded    = "ADDED"
	eventModified = "MODIFIED"
	eventDeleted  = "DELETED"
	eventBookmark = "BOOKMARK"
	eventError    = "ERROR"
)

// watchStream writes watch events to one client: plain objects, or
// one-row Tables whose column definitions only the first event carries.
type watchStream struct {
	a          *API
	w          http.ResponseWriter
	rc         *http.ResponseController
	ri         *requestInfo
	lq         *listQuery
	sentHeader bool   // a Table event with columnDefinitions went out
	buf        []byte // lines written and not yet handed to w
}

// watchBufMax is how much a stream gathers before it hands it to the
// ResponseWriter without waiting for a flush. Handing the writer one large
// slice per flush lets HTTP/2 send it in frames as large as the client
// takes; line by line, its 4 KiB handler buffer sent a frame (a hand-off to
// the connection's goroutine, a TLS record, a write call) every 4 KiB.
const watchBufMax = 64 << 10

// newWatchStream commits the response: 200, JSON, no write deadline.
func newWatchStream(a *API, w http.ResponseWriter, ri *requestInfo, lq *listQuery) *watchStream {
	h := w.Header()
	h.Set("Content-Type", mediaJSON)
	h.Set("Cache-Control", "no-cache, private")
	h.Set("X-Content-Type-Options", "nosniff")
	noWriteDeadline(w)
	w.WriteHeader(http.StatusOK)
	return &watchStream{a: a, w: w, rc: http.NewResponseController(w), ri: ri, lq: lq}
}

// sendInitial sends the synthetic ADDED events a watch starts with, then,
// for a watch-list (sendInitialEvents=true) that allows bookmarks, the
// bookmark that ends them, at the revision they were listed at.
func (ws *watchStream) sendInitial(objs []api.Object, wo watchOpts, rev int64) error {
	for _, obj := range objs {
		if err := ws.send(eventAdded, obj); err != nil {
			return err
		}
	}
	if wo.bookmarks && wo.initial != nil && *wo.initial {
		if err := ws.bookmark(rev, true); err != nil {
			return err
		}
	}
	return ws.flush()
}

// events sends a batch from the store: changes, and progress as BOOKMARKs
// (the store sends progress only when asked, for a watch that allows
// bookmarks, and never at or before the revision the watch started after).
func (ws *watchStream) events(batch []datastore.Event) error {
	for _, ev := range batch {
		var err error
		if ev.Type == datastore.EventProgress {
			err = ws.bookmark(ev.Revision, false)
		} else {
			err = ws.event(ev)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// event sends what a store event means to this watcher, if anything: with
// selectors, an object that starts matching is ADDED and one that stops
// matching is DELETED (as it was before the change).
func (ws *watchStream) event(ev datastore.Event) error {
	typ, obj, err := ws.classify(ev)
	if err != nil {
		ws.a.log.Warn("skip undecodable watch event", "key", ev.KV.Key, "rev", ev.Revision, "err", err)
		return nil
	}
	if typ == "" {
		return nil
	}
	return ws.send(typ, obj)
}

func (ws *watchStream) classify(ev datastore.Event) (string, api.Object, error) {
	res := ws.ri.res
	obj, err := decodeStored(res, ev.KV)
	if err != nil {
		return "", nil, err
	}
	matches := ws.lq.Selects(res, obj)
	switch ev.Type {
	case datastore.EventCreate:
		return pick(matches, eventAdded, ""), obj, nil
	case datastore.EventDelete:
		return pick(matches, eventDeleted, ""), obj, nil
	}
	if !ws.lq.Filtered() {
		return eventModified, obj, nil
	}
	return ws.classifyUpdate(ev, obj, matches)
}

// classifyUpdate compares an update's old and new object with the
// selectors.
func (ws *watchStream) classifyUpdate(ev datastore.Event, obj api.Object, matches bool) (string, api.Object, error) {
	if ev.PrevKV == nil {
		return pick(matches, eventAdded, ""), obj, nil
	}
	prev, err := decodeStored(ws.ri.res, ev.PrevKV)
	if err != nil {
		return "", nil, err
	}
	was := ws.lq.Selects(ws.ri.res, prev)
	switch {
	case matches && was:
		return eventModified, obj, nil
	case matches:
		return eventAdded, obj, nil
	case was:
		prev.SetResourceVersion(registry.FormatResourceVersion(ev.Revision))
		return eventDeleted, prev, nil
	}
	return "", nil, nil
}

// send writes one {"type":...,"object":...} line.
func (ws *watchStream) send(typ string, obj api.Object) error {
	data, err := ws.encode(obj)
	if err != nil {
		ws.a.log.Warn("skip unencodable watch event", "name", obj.GetName(), "err", err)
		return nil
	}
	return ws.write(typ, data)
}

// bookmark sends a BOOKMARK at rev.
func (ws *watchStream) bookmark(rev int64, initialEnd bool) error {
	data, err := ws.bookmarkObject(rev, initialEnd)
	if err != nil {
		return err
	}
	return ws.write(eventBookmark, data)
}

// fail sends err as the stream's last event, an ERROR carrying its
// Status, as upstream ends a watch that cannot go on.
func (ws *watchStream) fail(err error) {
	st := statusOf(err)
	st.Kind, st.APIVersion = "Status", "v1"
	data, jerr := json.Marshal(&st)
	if jerr == nil && ws.write(eventError, data) == nil {
		_ = ws.flush()
	}
}

// write writes one event line around an encoded object.
func (ws *watchStream) write(typ string, data []byte) error {
	ws.buf = append(ws.buf, `{"type":"`...)
	ws.buf = append(ws.buf, typ...)
	ws.buf = append(ws.buf, `","object":`...)
	ws.buf = append(ws.buf, data...)
	ws.buf = append(ws.buf, "}\n"...)
	if len(ws.buf) < watchBufMax {
		return nil
	}
	return ws.spill()
}

// spill hands what was gathered to the ResponseWriter (which sends it on
// its flush, or when the handler returns).
func (ws *watchStream) spill() error {
	if len(ws.buf) == 0 {
		return nil
	}
	_, err := ws.w.Write(ws.buf)
	if cap(ws.buf) > 2*watchBufMax {
		ws.buf = nil // a burst's buffer is not kept for the watch's life
	} else {
		ws.buf = ws.buf[:0]
	}
	return err
}

func (ws *watchStream) encode(obj api.Object) ([]byte, error) {
	if ws.ri.out != outTable {
		return api.Encode(obj)
	}
	t, err := ws.a.table(ws.ri, []api.Object{obj}, ws.sentHeader)
	if err != nil {
		return nil, err
	}
	ws.sentHeader = true
	t.ResourceVersion = obj.GetResourceVersion()
	return api.EncodeObject(t)
}

func (ws *watchStream) flush() error {
	if err := ws.spill(); err != nil {
		return err
	}
	return ws.rc.Flush()
}
