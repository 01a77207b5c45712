package apiserver

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// watch answers ?watch=true: newline-delimited JSON events, flushed as
// they happen, until timeoutSeconds, the client leaving, or shutdown.
// resourceVersion "" or "0" starts with a synthetic ADDED per current
// object; N sends only changes after N (410 when N is compacted).
// sendInitialEvents and allowWatchBookmarks work as upstream's (see
// watchlist.go).
func (a *API) watch(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	lq, wo, err := parseWatchQuery(ri)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), lq.timeout)
	defer cancel()
	if !a.watchListFresh(ctx, w, ri, lq, wo) {
		return nil
	}
	opened, ok := a.awaitFuture(ctx, w, ri, lq, wo)
	if !ok {
		return nil
	}
	initial, after, err := a.watchStart(ctx, ri, lq, wo)
	if err != nil {
		return err
	}
	if sub, ok := a.subscribe(ctx, ri.res, after); ok {
		ws := a.openStream(opened, w, ri, lq)
		if ws.sendInitial(initial, wo, after) != nil {
			sub.Close()
			return nil
		}
		last, cut := a.pumpCache(ctx, ws, sub, after, wo.bookmarks)
		if !cut {
			return nil
		}
		// Cut off for falling behind: go on from the datastore's watch.
		events := listwatch.NewWatch(a.store, ri.res.Prefix(ri.namespace), last,
			listwatch.WatchConfig{Logger: a.log, Progress: wo.bookmarks})
		defer events.Close()
		a.pumpEvents(ctx, ws, events, wo.bookmarks)
		return nil
	}
	// The stream follows the prefix with listwatch's watch-and-resume part:
	// a watch the store cuts off resumes after the last revision sent. It
	// cannot list again when that revision is compacted (the client holds
	// the state, not the stream), so it then ends with 410 as upstream
	// does, and the client lists again itself.
	events := listwatch.NewWatch(a.store, ri.res.Prefix(ri.namespace), after,
		listwatch.WatchConfig{Logger: a.log, Progress: wo.bookmarks})
	defer events.Close()
	if err := events.Open(ctx); err != nil {
		if opened != nil {
			opened.fail(a.watchError(ctx, err, after))
			return nil
		}
		return a.watchError(ctx, err, after)
	}
	ws := a.openStream(opened, w, ri, lq)
	if ws.sendInitial(initial, wo, after) != nil {
		return nil
	}
	a.pumpEvents(ctx, ws, events, wo.bookmarks)
	return nil
}

// parseWatchQuery reads a watch's parameters; a watch on one object's URL
// selects it by name.
func parseWatchQuery(ri *requestInfo) (*listQuery, watchOpts, error) {
	q := ri.query
	if q.Has("sendInitialEvents") { // resourceVersionMatch is then a watch option
		q = maps.Clone(q)
		q.Del("resourceVersionMatch")
	}
	lq, err := parseListQuery(ri.res, q)
	if err != nil {
		return nil, watchOpts{}, err
	}
	lq.ResourceVersionMatch = ri.query.Get("resourceVersionMatch")
	wo, err := parseWatchOpts(ri.query, lq)
	if err != nil {
		return nil, wo, err
	}
	if lq.ResourceVersionMatch != "" && wo.initial == nil {
		return nil, wo, badRequest("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch")
	}
	if ri.name != "" {
		lq.Fields = fields.AndSelectors(lq.Fields, fields.OneTermEqualSelector("metadata.name", ri.name))
	}
	return lq, wo, nil
}

// watchStart lists the current objects when the watch starts with them
// (resourceVersion "" or "0", or sendInitialEvents=true) and says after
// which revision the change stream starts.
func (a *API) watchStart(ctx context.Context, ri *requestInfo, lq *listQuery, wo watchOpts) ([]api.Object, int64, error) {
	withList := lq.ResourceVersion == 0
	if wo.initial != nil {
		withList = *wo.initial
	}
	if !withList && lq.ResourceVersion == 0 { // sendInitialEvents=false from "now"
		rev, err := a.store.CurrentRevision(ctx)
		if err != nil {
			return nil, 0, storeError(err, nil, "")
		}
		return nil, rev, nil
	}
	if !withList {
		return nil, lq.ResourceVersion, nil
	}
	lo := lq.ListOptions
	lo.Limit, lo.Continue, lo.ResourceVersion, lo.ResourceVersionMatch = 0, "", 0, "" // the latest: fresh enough
	list, err := a.reg.List(ctx, ri.res, ri.namespace, lo)
	if err != nil {
		return nil, 0, err
	}
	rev, _ := parseResourceVersion(list.ResourceVersion)
	return list.Items, rev, nil
}

// watchError explains why a watch could not start.
func (a *API) watchError(ctx context.Context, err error, after int64) error {
	if errors.Is(err, datastore.ErrCompacted) {
		return a.expiredError(ctx, after)
	}
	return storeError(err, nil, "")
}

// pumpEvents copies store events to the stream, resuming after cut-offs;
// a compacted revision ends it with an ERROR event (410). With bookmarks
// it asks the store for progress on upstream's schedule and sends each
// answer as a BOOKMARK.
func (a *API) pumpEvents(ctx context.Context, ws *watchStream, events *listwatch.Watch, bookmarks bool) {
	var due <-chan time.Time
	schedule := func() {
		deadline, _ := ctx.Deadline()
		if d, ok := nextBookmark(time.Now(), deadline, a.bookmarkEvery); bookmarks && ok {
			due = time.After(d)
		}
	}
	schedule()
	for {
		ch, err := events.Chan(ctx)
		if errors.Is(err, datastore.ErrCompacted) {
			ws.fail(a.expiredError(ctx, events.Last()))
		}
		if err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-due:
			events.RequestProgress()
			schedule()
		case batch, ok := <-ch:
			events.Recv(batch, ok)
			if ws.events(batch) != nil || ws.flush() != nil {
				return
			}
		}
	}
}

// noWriteDeadline lifts any server write timeout for a long response.
func noWriteDeadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
}
