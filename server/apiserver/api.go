package apiserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/audit"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/registry"
)

// DefaultMaxBodyBytes caps request bodies when APIConfig.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 3 << 20

// APIConfig holds what the REST handler needs. Authn, Authz and one of
// Registry or Store are required; zero values of the rest get defaults.
type APIConfig struct {
	// Registry admits and stores objects; without one, NewAPI makes one on
	// Store.
	Registry *registry.Registry
	Store    datastore.Store
	// Cache is the shared informer cache a registry NewAPI makes lists
	// from; optional.
	Cache *informer.Cache
	Authn auth.Authenticator
	Authz auth.Authorizer
	// Logs streams container logs from agents; nil answers pods/log with 503.
	Logs LogStreamer
	// Streams opens exec and port-forward tunnels through agents; nil
	// answers pods/exec, attach and portforward with 503.
	Streams StreamHub
	// NodeMetrics fetches an agent's metrics for nodes/{name}/proxy/metrics;
	// nil answers them with 503.
	NodeMetrics NodeMetricsFetcher
	// MetricsToken, when set, is a bearer token that may read /metrics
	// (and nothing else) without another identity.
	MetricsToken string
	Log          *slog.Logger
	// MaxBodyBytes caps request bodies (default 3 MiB); larger ones get 413.
	MaxBodyBytes int64
	Now          func() time.Time
	// BookmarkInterval is how often a watch that allows bookmarks gets one
	// (default DefaultBookmarkInterval); tests shorten it.
	BookmarkInterval time.Duration
	// RecheckInterval is how often open watches and log streams check
	// their credentials again, ending when they are revoked (default
	// DefaultRecheckInterval).
	RecheckInterval time.Duration
	// Tokens serves serviceaccounts/token and the OIDC discovery paths;
	// nil answers them 404.
	Tokens TokenIssuer
}

// LogStreamer copies a container's log from the agent running pod on node
// to w until the log ends (or, with opts.Follow, until ctx ends).
type LogStreamer interface {
	StreamLogs(ctx context.Context, node string, pod *corev1.Pod, opts *corev1.PodLogOptions, w io.Writer) error
}

// API serves bramble's Kubernetes-style REST API: discovery, OpenAPI,
// health, and get/list/watch/create/update/patch/delete on the resources in
// the registry's kinds, each request authenticated, authorized and admitted.
type API struct {
	reg          *registry.Registry
	store        datastore.Store
	authn        auth.Authenticator
	authz        auth.Authorizer
	logs         LogStreamer
	streams      StreamHub
	tokens       TokenIssuer
	nodeMetrics  NodeMetricsFetcher
	metricsToken string
	log          *slog.Logger
	maxBody      int64
	now          func() time.Time
	// bookmarkEvery spaces the bookmarks of watches that allow them.
	bookmarkEvery time.Duration
	recheckEvery  time.Duration

	docs atomic.Pointer[documents]
	// usage serves the metrics API (metrics.go).
	usage atomic.Pointer[UsageSource]
}

// NewAPI checks cfg and builds the discovery and OpenAPI documents, which
// follow the registry's kinds from then on. Without cfg.Registry it makes
// one on cfg.Store (which creates the namespaces every cluster has).
func NewAPI(ctx context.Context, cfg APIConfig) (*API, error) {
	if (cfg.Store == nil && cfg.Registry == nil) || cfg.Authn == nil || cfg.Authz == nil {
		return nil, errors.New("new API: Registry (or Store), Authn and Authz are required")
	}
	a := &API{reg: cfg.Registry, authn: cfg.Authn, authz: cfg.Authz, logs: cfg.Logs, streams: cfg.Streams, tokens: cfg.Tokens,
		log: cfg.Log, maxBody: cfg.MaxBodyBytes, now: cfg.Now, bookmarkEvery: cfg.BookmarkInterval,
		recheckEvery: cfg.RecheckInterval, nodeMetrics: cfg.NodeMetrics, metricsToken: cfg.MetricsToken}
	if a.log == nil {
		a.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.maxBody <= 0 {
		a.maxBody = DefaultMaxBodyBytes
	}
	if a.bookmarkEvery <= 0 {
		a.bookmarkEvery = DefaultBookmarkInterval
	}
	if a.recheckEvery <= 0 {
		a.recheckEvery = DefaultRecheckInterval
	}
	if a.reg == nil {
		var err error
		a.reg, err = registry.New(ctx, registry.Config{Store: cfg.Store, Cache: cfg.Cache, Log: a.log, Now: cfg.Now, MaxObjectBytes: a.maxBody})
		if err != nil {
			return nil, fmt.Errorf("new API: %w", err)
		}
	}
	a.store = a.reg.Store()
	if a.now == nil {
		a.now = a.reg.Now
	}
	kinds := a.reg.Kinds()
	d, err := buildDocuments(kinds, kinds.Generation(), nil)
	if err != nil {
		return nil, fmt.Errorf("new API: %w", err)
	}
	a.docs.Store(d)
	kinds.OnChange(a.rebuildDocuments)
	return a, nil
}

// Registry is the registry the API admits and stores objects through.
func (a *API) Registry() *registry.Registry { return a.reg }

// ServeHTTP answers one request. A panic in a handler becomes a 500 Status
// (when nothing was written yet) and an error log line; the server goes on.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &responseRecorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			a.recovered(rec, r, p)
		}
		observeRequest(rec, r, start)
		a.log.Debug("request", "method", r.Method, "path", r.URL.Path, "query", r.URL.RawQuery,
			"code", rec.statusCode(), "bytes", rec.written, "took", time.Since(start))
	}()
	a.serve(rec, r)
}

// serve routes public endpoints first, then authenticates, parses the path,
// authorizes and dispatches.
func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	if h := a.publicHandler(r.URL.Path); h != nil {
		h(w, r)
		return
	}
	if a.metricsTokenOK(r) {
		a.serveMetrics(w, r)
		return
	}
	user, err := a.authn.Authenticate(r)
	if err != nil {
		a.writeError(w, r, authError(err, auth.ErrUnauthenticated, unauthorized))
		return
	}
	audit.SetUser(r.Context(), user.Name, user.Groups)
	if a.streams != nil && strings.HasPrefix(r.URL.Path, mqtt.TunnelPathPrefix) {
		a.streams.Accept(w, r, user.Name) // an agent brings a stream's tunnel
		return
	}
	if user, err = a.impersonate(r, user); err != nil {
		a.writeError(w, r, err)
		return
	}
	user = authenticated(user)
	if r.URL.Path == accessReviewPath {
		noteAccessReview(r.Context())
		a.reviewAccess(w, r, user)
		return
	}
	if review := a.reviewHandler(r.URL.Path); review != nil {
		review(w, r, user)
		return
	}
	if strings.HasPrefix(r.URL.Path, metricsPrefix) {
		a.serveMetricsAPI(w, r, user)
		return
	}
	ri, err := parseRequest(a.reg.Kinds(), r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	noteAudit(r.Context(), ri)
	defer noteMetrics(w, ri)()
	ri.user = user
	r = r.WithContext(registry.WithUser(r.Context(), registry.UserInfo{Name: user.Name, Groups: user.Groups}))
	if ri.authorizeAfterDecode() {
		ri.createAuthz = true
	} else if err := a.authorize(r.Context(), ri, ri.attributes()); err != nil {
		a.writeError(w, r, err)
		return
	}
	if ri.res == nil {
		a.serveNonResource(w, r, ri)
		return
	}
	if ri.longRunning() {
		var stop func()
		r, stop = a.untilRevoked(r, user)
		defer stop()
	}
	a.dispatch(w, r, ri)
}

// authorize asks the authorizer about attrs for ri's user and turns a
// refusal into a 403 Status.
func (a *API) authorize(ctx context.Context, ri *requestInfo, attrs auth.Attributes) error {
	if err := a.authz.Authorize(ctx, ri.user, attrs); err != nil {
		return authError(err, auth.ErrForbidden, func(err error) error { return forbidden(ri, ri.user, err) })
	}
	return nil
}

// responseRecorder remembers the status code and byte count of a response
// for the request log and panic recovery. Unwrap lets http.ResponseController
// reach the connection (flushes, write deadlines for watches).
type responseRecorder struct {
	http.ResponseWriter
	code    int
	written int64
	obs     observed
}

func (w *responseRecorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseRecorder) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.written += int64(n)
	return n, err
}

// Flush sends buffered data to the client (watch events, followed logs).
func (w *responseRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.code == 0 {
			w.code = http.StatusOK
		}
		f.Flush()
	}
}

func (w *responseRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *responseRecorder) statusCode() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// recovered handles a handler panic: net/http's abort sentinel is passed
// on; anything else is logged with its stack and answered with a 500 Status
// when the response has not started.
func (a *API) recovered(w *responseRecorder, r *http.Request, p any) {
	if p == http.ErrAbortHandler {
		panic(p)
	}
	a.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path,
		"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	if w.code != 0 {
		return
	}
	a.writeError(w, r, apierrors.NewInternalError(fmt.Errorf("the server hit a bug serving this request: %v", p)))
}
