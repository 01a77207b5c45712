package apiserver

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/metrics"
)

// metricsPath is where the server's own Prometheus metrics are served.
const metricsPath = "/metrics"

// observed is what the request metrics know of a request once its path
// was parsed; ServeHTTP counts it when the response is done.
type observed struct {
	req  metrics.Request
	long bool
}

// noteMetrics labels the request w answers with ri's verb and resource,
// and counts it as open while it is long-running (the returned func ends
// that).
func noteMetrics(w http.ResponseWriter, ri *requestInfo) func() {
	rec, ok := w.(*responseRecorder)
	if !ok {
		return func() {}
	}
	o := &rec.obs
	o.req.Verb = ri.verb
	if ri.res != nil {
		o.req.Group, o.req.Version, o.req.Resource = ri.res.Group, ri.res.Version, ri.res.Name
		o.req.Subresource, o.req.Scope = ri.sub, scopeOf(ri)
	}
	if o.long = ri.longRunning(); o.long {
		return metrics.LongRunning(&o.req)
	}
	return func() {}
}

// scopeOf is upstream's scope label: one object, a namespace, or the
// whole cluster.
func scopeOf(ri *requestInfo) string {
	switch {
	case ri.name != "":
		return "resource"
	case ri.namespace != "":
		return "namespace"
	}
	return "cluster"
}

// observeRequest counts a finished request. One whose path was never
// parsed (refused before, or a public path) is labelled by its method.
func observeRequest(rec *responseRecorder, r *http.Request, start time.Time) {
	if rec.obs.req.Verb == "" {
		rec.obs.req.Verb = methodVerb(r.Method)
	}
	metrics.ObserveRequest(&rec.obs.req, rec.statusCode(), time.Since(start).Seconds(), rec.obs.long)
}

// methodVerb lowercases the usual methods without allocating.
func methodVerb(m string) string {
	switch m {
	case http.MethodGet:
		return "get"
	case http.MethodHead:
		return "head"
	case http.MethodPost:
		return "post"
	case http.MethodPut:
		return "put"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return "other"
}

// metricsTokenOK reports whether r carries the --metrics-token bearer
// token, which may read /metrics and nothing else.
func (a *API) metricsTokenOK(r *http.Request) bool {
	if a.metricsToken == "" || r.URL.Path != metricsPath {
		return false
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(tok), []byte(a.metricsToken)) == 1
}

// serveMetrics answers /metrics from the server's registry.
func (a *API) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		a.writeError(w, r, methodNotAllowedPath())
		return
	}
	metricsHandler().ServeHTTP(w, r)
}

// metricsHandler is built on first use, as metrics.Server is.
var metricsHandler = sync.OnceValue(func() http.Handler { return metrics.Handler(metrics.Server()) })
