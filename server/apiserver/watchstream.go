package apiserver

import (
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
)

// watchStream writes watch events to one client: plain objects, or
// one-row Tables whose column definitions only the first event carries.
type watchStream struct {
	a          *API
	w          http.ResponseWriter
	rc         *http.ResponseController
	ri         *requestInfo
	lq         *listQuery
	sentHeader bool // a Table event with columnDefinitions went out
}

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
	line := make([]byte, 0, len(data)+40)
	line = append(line, `{"type":"`...)
	line = append(line, typ...)
	line = append(line, `","object":`...)
	line = append(line, data...)
	line = append(line, "}\n"...)
	_, err = ws.w.Write(line)
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

func (ws *watchStream) flush() error { return ws.rc.Flush() }
