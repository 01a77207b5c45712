package runtime

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
)

// testRegistry serves images read-only over the registry HTTP API
// (/v2/NAME/manifests/REF, /v2/NAME/blobs/DIGEST) on loopback, in plain
// HTTP, with Basic authentication when user is set.
type testRegistry struct {
	*httptest.Server
	user, pass string
	mu         sync.Mutex
	manifests  map[string][]byte // "name:tag" and "name@digest"
	blobs      map[digest.Digest][]byte
	requests   []string
}

func newTestRegistry(t testing.TB, user, pass string) *testRegistry {
	t.Helper()
	r := &testRegistry{user: user, pass: pass, manifests: map[string][]byte{}, blobs: map[digest.Digest][]byte{}}
	r.Server = httptest.NewServer(r)
	t.Cleanup(r.Close)
	return r
}

// host is the registry's host:port.
func (r *testRegistry) host() string { return strings.TrimPrefix(r.URL, "http://") }

// push stores img as repo:tag.
func (r *testRegistry) push(repo, tag string, img *runtimetest.Image) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range [][]byte{img.Layer, img.Config} {
		r.blobs[digest.FromBytes(b)] = b
	}
	r.manifests[repo+":"+tag] = img.Manifest
	r.manifests[repo+"@"+digest.FromBytes(img.Manifest).String()] = img.Manifest
}

func (r *testRegistry) requestLog() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

func (r *testRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req.Method+" "+req.URL.RequestURI())
	if u, p, ok := req.BasicAuth(); r.user != "" && (!ok || u != r.user || p != r.pass) {
		w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
		http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
		return
	}
	path := strings.TrimPrefix(req.URL.Path, "/v2/")
	var body []byte
	switch {
	case req.URL.Path == "/v2/":
		return
	case strings.Contains(path, "/manifests/"):
		i := strings.LastIndex(path, "/manifests/")
		name, ref := path[:i], path[i+len("/manifests/"):]
		sep := ":"
		if strings.HasPrefix(ref, "sha256:") {
			sep = "@"
		}
		body = r.manifests[name+sep+ref]
		w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
	case strings.Contains(path, "/blobs/"):
		body = r.blobs[digest.Digest(path[strings.LastIndex(path, "/blobs/")+len("/blobs/"):])]
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	if body == nil {
		http.Error(w, `{"errors":[{"code":"NOT_FOUND"}]}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Docker-Content-Digest", digest.FromBytes(body).String())
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if req.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
