package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// watch answers ?watch=true: newline-delimited JSON events, flushed as
// they happen, until timeoutSeconds, the client leaving, or shutdown.
// resourceVersion "" or "0" starts with a synthetic ADDED per current
// object; N sends only changes after N (410 when N is compacted).
func (a *API) watch(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	lq, err := parseWatchQuery(ri)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), lq.timeout)
	defer cancel()
	initial, after, err := a.watchStart(ctx, ri, lq)
	if err != nil {
		return err
	}
	prefix := ri.res.Prefix(ri.namespace)
	events, err := a.store.Watch(ctx, prefix, after)
	if err != nil {
		return a.watchError(ctx, err, after)
	}
	ws := newWatchStream(a, w, ri, lq)
	for _, obj := range initial {
		if ws.send("ADDED", obj) != nil {
			return nil
		}
	}
	if ws.flush() != nil {
		return nil
	}
	a.pumpEvents(ctx, ws, events, prefix, after)
	return nil
}

// parseWatchQuery reads a watch's parameters; a watch on one object's URL
// selects it by name.
func parseWatchQuery(ri *requestInfo) (*listQuery, error) {
	lq, err := parseListQuery(ri.res, ri.query)
	if err != nil {
		return nil, err
	}
	if lq.ResourceVersionMatch != "" {
		return nil, badRequest("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch")
	}
	if ri.name != "" {
		lq.Fields = fields.AndSelectors(lq.Fields, fields.OneTermEqualSelector("metadata.name", ri.name))
	}
	return lq, nil
}

// watchStart lists the current objects for a watch from "" or "0" and
// says after which revision the change stream starts.
func (a *API) watchStart(ctx context.Context, ri *requestInfo, lq *listQuery) ([]api.Object, int64, error) {
	if lq.ResourceVersion != 0 {
		return nil, lq.ResourceVersion, nil
	}
	lo := lq.ListOptions
	lo.Limit, lo.Continue = 0, ""
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
		compacted, _ := a.store.CompactRevision(ctx)
		return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", after, compacted))
	}
	return storeError(err, nil, "")
}

// pumpEvents copies store events to the stream. When the store cuts off a
// watcher that fell behind, the watch resumes after the last revision sent;
// if that is no longer possible the stream ends and the client re-lists.
func (a *API) pumpEvents(ctx context.Context, ws *watchStream, events <-chan []datastore.Event, prefix string, last int64) {
	for {
		select {
		case <-ctx.Done():
			return
		case batch, ok := <-events:
			if !ok {
				var err error
				if events, err = a.store.Watch(ctx, prefix, last); err != nil {
					return
				}
				continue
			}
			for _, ev := range batch {
				if ws.event(ev) != nil {
					return
				}
				last = ev.Revision
			}
			if ws.flush() != nil {
				return
			}
		}
	}
}

// noWriteDeadline lifts any server write timeout for a long response.
func noWriteDeadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
}
