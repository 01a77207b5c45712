package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/server/registry"
)

// watchOpts are the watch-only query parameters.
type watchOpts struct {
	// bookmarks: allowWatchBookmarks=true, as client-go's reflector sends.
	bookmarks bool
	// initial is sendInitialEvents (nil when absent: the legacy rule, a
	// synthetic ADDED per object only from resourceVersion "" or "0").
	initial *bool
}

// Upstream's limits: how long a watch-list waits for the store to reach a
// resourceVersion from the future, and how long before a watch's timeout
// its last bookmark goes out.
const (
	freshWait      = 3 * time.Second
	bookmarkMargin = 2 * time.Second
)

// DefaultBookmarkInterval is how often a watch that allows bookmarks gets
// one, as upstream's watch cache does.
const DefaultBookmarkInterval = time.Minute

// parseWatchOpts reads allowWatchBookmarks and sendInitialEvents and
// applies upstream's rules for sendInitialEvents.
func parseWatchOpts(q url.Values, lq *listQuery) (watchOpts, error) {
	var wo watchOpts
	var err error
	if wo.bookmarks, err = boolParam(q, "allowWatchBookmarks"); err != nil {
		return wo, err
	}
	initial, err := boolParam(q, "sendInitialEvents")
	if err != nil || !q.Has("sendInitialEvents") {
		return wo, err
	}
	if lq.ResourceVersionMatch != string(metav1.ResourceVersionMatchNotOlderThan) {
		return wo, badRequest("resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	}
	wo.initial = &initial
	return wo, nil
}

// watchListFresh makes a watch-list from a resourceVersion wait until the
// store has reached it; when it does not, it answers as upstream does past
// validation, in the stream (200, one ERROR event), and reports false.
func (a *API) watchListFresh(ctx context.Context, w http.ResponseWriter, ri *requestInfo, lq *listQuery, wo watchOpts) bool {
	if wo.initial == nil || !*wo.initial || lq.ResourceVersion == 0 {
		return true
	}
	if err := a.waitFresh(ctx, lq.ResourceVersion); err != nil {
		newWatchStream(a, w, ri, lq).fail(err)
		return false
	}
	return true
}

// waitFresh waits up to freshWait for the store to reach rev, as
// upstream's watch cache does for a watch-list; then it gives up with
// upstream's 504 "Too large resource version".
func (a *API) waitFresh(ctx context.Context, rev int64) error {
	deadline := time.Now().Add(freshWait)
	for {
		cur, err := a.store.CurrentRevision(ctx)
		if err != nil {
			return storeError(err, nil, "")
		}
		if cur >= rev {
			return nil
		}
		if time.Now().After(deadline) {
			return registry.TooLargeResourceVersion(rev, cur)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// nextBookmark says when the next bookmark is due: after the interval, or
// sooner so that one goes out bookmarkMargin before the watch times out
// (the client then resumes from a fresh revision); false when the watch
// ends before that.
func nextBookmark(now, deadline time.Time, every time.Duration) (time.Duration, bool) {
	left := deadline.Sub(now) - bookmarkMargin
	if left <= 0 {
		return 0, false
	}
	return min(every, left), true
}

// bookmarkObject is what a BOOKMARK event carries: an object of the
// watched kind (a Table for Table watches) with only its resourceVersion,
// and upstream's annotation on the one that ends a watch-list's initial
// events.
func (ws *watchStream) bookmarkObject(rev int64, initialEnd bool) ([]byte, error) {
	kind, apiVersion := ws.ri.res.Kind, ws.ri.res.APIVersion()
	if ws.ri.out == outTable {
		kind, apiVersion = "Table", metav1.SchemeGroupVersion.String()
	}
	meta := map[string]any{"resourceVersion": registry.FormatResourceVersion(rev)}
	if initialEnd {
		meta["annotations"] = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return json.Marshal(map[string]any{"kind": kind, "apiVersion": apiVersion, "metadata": meta})
}

// expiredError is the 410 of a watch whose revision was compacted.
func (a *API) expiredError(ctx context.Context, after int64) error {
	compacted, _ := a.store.CompactRevision(ctx)
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", after, compacted))
}

// statusOf is the Status an API error carries.
func statusOf(err error) metav1.Status {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return se.Status()
	}
	return apierrors.NewInternalError(err).Status()
}
