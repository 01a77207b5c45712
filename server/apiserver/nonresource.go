package apiserver

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"time"

	kversion "k8s.io/apimachinery/pkg/version"

	"github.com/bramble-edge/bramble/version"
)

// readyTimeout bounds the datastore check behind /readyz.
const readyTimeout = 2 * time.Second

// publicHandler returns the handler of a path anyone may read without
// credentials (health and version, as in Kubernetes), or nil.
func (a *API) publicHandler(path string) http.HandlerFunc {
	switch path {
	case "/healthz", "/livez":
		return a.getOnly(func(w http.ResponseWriter, r *http.Request) {
			writeRaw(w, http.StatusOK, "text/plain; charset=utf-8", []byte("ok"))
		})
	case "/readyz":
		return a.getOnly(a.serveReady)
	case "/version":
		return a.getOnly(serveVersion)
	}
	return a.oidcHandler(path)
}

func (a *API) getOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			a.writeError(w, r, methodNotAllowedPath())
			return
		}
		h(w, r)
	}
}

// healthReporter is a datastore that knows whether it can write (a full
// disk fails writes while reads go on).
type healthReporter interface{ Health() error }

// serveReady answers ok when the datastore answers and can write.
func (a *API) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	_, err := a.store.CurrentRevision(ctx)
	if h, ok := a.store.(healthReporter); ok && err == nil {
		err = h.Health()
	}
	if err != nil {
		writeRaw(w, http.StatusServiceUnavailable, "text/plain; charset=utf-8", []byte("readyz check failed: datastore: "+err.Error()))
		return
	}
	writeRaw(w, http.StatusOK, "text/plain; charset=utf-8", []byte("ok"))
}

// serveVersion reports Kubernetes 1.32: kubectl's dispatcher picks its
// kubectl binary by major and minor.
func serveVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, kversion.Info{
		Major: version.KubeMajor, Minor: version.KubeMinor, GitVersion: version.KubeGitVersion,
		GitCommit: "bramble-" + version.Version, GitTreeState: "clean",
		GoVersion: runtime.Version(), Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH,
	})
}

// serveNonResource answers discovery and OpenAPI paths.
func (a *API) serveNonResource(w http.ResponseWriter, r *http.Request, ri *requestInfo) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		a.writeError(w, r, methodNotAllowedPath())
		return
	}
	path := strings.TrimSuffix(ri.path, "/")
	d := a.docs.Load().discovery
	switch {
	case path == metricsPath:
		a.serveMetrics(w, r)
	case path == "/api":
		a.serveDiscovery(w, r, d.apiVersions, d.aggCore)
	case path == "/apis":
		a.serveDiscovery(w, r, d.groupList, d.aggGroups)
	case path == openAPIV2Path:
		a.serveOpenAPIV2(w, r)
	case path == openAPIPrefix || strings.HasPrefix(path, openAPIPrefix+"/"):
		a.serveOpenAPI(w, r, path)
	case strings.HasPrefix(path, "/api/"):
		a.serveDoc(w, r, d.resources[strings.TrimPrefix(path, "/api/")])
	case strings.HasPrefix(path, "/apis/"):
		rest := strings.TrimPrefix(path, "/apis/")
		doc := d.resources[rest]
		if !strings.Contains(rest, "/") {
			doc = d.groups[rest]
		}
		a.serveDoc(w, r, doc)
	default:
		a.writeError(w, r, notFoundPath())
	}
}

// serveDiscovery answers /api or /apis: aggregated discovery when Accept
// asks for it, the legacy document otherwise.
func (a *API) serveDiscovery(w http.ResponseWriter, r *http.Request, legacy []byte, aggregated *smallDoc) {
	out, err := negotiate(r.Header.Get("Accept"), outDiscoveryV2)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Vary", "Accept")
	if out == outDiscoveryV2 {
		aggregated.write(w, r, contentTypeDiscoveryV2)
		return
	}
	writeRaw(w, http.StatusOK, mediaJSON, legacy)
}

func (a *API) serveDoc(w http.ResponseWriter, r *http.Request, doc []byte) {
	if doc == nil {
		a.writeError(w, r, notFoundPath())
		return
	}
	if _, err := negotiate(r.Header.Get("Accept")); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, mediaJSON, doc)
}
