package apiserver

import (
	"context"
	"net/http"
)

// A watch of the changes after a resourceVersion the store has not reached
// is accepted at once and waits, as upstream's watch cache does. It does
// not wait in silence for ever: when the store has not reached the revision
// within freshWait (upstream's 3 s), the stream ends with upstream's 504
// "Too large resource version" ERROR, whether the shared cache or the
// datastore would have served it. A client holding a revision from a
// datastore's discarded future (restored from an older snapshot, which
// moved the counter past it only when restored over the old datastore)
// thus lists again instead of missing every change until the store passes
// its revision. A watch-list from the future is watchListFresh's.

// awaitFuture returns (nil, true) for a watch not from the future; else the
// stream it opened and whether the store reached the revision in time.
func (a *API) awaitFuture(ctx context.Context, w http.ResponseWriter, ri *requestInfo, lq *listQuery, wo watchOpts) (*watchStream, bool) {
	if lq.ResourceVersion == 0 || wo.initial != nil && *wo.initial {
		return nil, true
	}
	cur, err := a.store.CurrentRevision(ctx)
	if err != nil || cur >= lq.ResourceVersion {
		return nil, true // an error is the watch's to report as before
	}
	ws := newWatchStream(a, w, ri, lq)
	if ws.flush() != nil {
		return nil, false
	}
	if err := a.waitFresh(ctx, lq.ResourceVersion); err != nil {
		ws.fail(err)
		return nil, false
	}
	return ws, true
}

// openStream is the stream awaitFuture opened, or a new one.
func (a *API) openStream(ws *watchStream, w http.ResponseWriter, ri *requestInfo, lq *listQuery) *watchStream {
	if ws != nil {
		return ws
	}
	return newWatchStream(a, w, ri, lq)
}
