package imageregistry

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// ociRegistry is go-containerregistry's in-memory registry on loopback, in
// plain HTTP, counting requests, optionally asking for a Basic login and
// optionally holding every request until released.
type ociRegistry struct {
	*httptest.Server
	user, pass string
	requests   atomic.Int64
	mu         sync.Mutex
	hold       chan struct{} // when set, requests wait for it to close
}

func newOCIRegistry(t testing.TB, user, pass string) *ociRegistry {
	t.Helper()
	r := &ociRegistry{user: user, pass: pass}
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		r.mu.Lock()
		hold := r.hold
		r.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-req.Context().Done():
				return
			}
		}
		if u, p, ok := req.BasicAuth(); r.user != "" && (!ok || u != r.user || p != r.pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// host is the registry's host:port.
func (r *ociRegistry) host() string { return strings.TrimPrefix(r.URL, "http://") }

// holdRequests makes requests wait until the returned function is called.
func (r *ociRegistry) holdRequests() (release func()) {
	ch := make(chan struct{})
	r.mu.Lock()
	r.hold = ch
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.hold = nil
		r.mu.Unlock()
		close(ch)
	}
}

// do sends one authenticated request straight to the registry.
func (r *ociRegistry) do(t testing.TB, method, path, contentType string, body []byte) *http.Response {
	t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = r.URL + path
	}
	req, err := http.NewRequest(method, target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if r.user != "" {
		req.SetBasicAuth(r.user, r.pass)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	resp.Body.Close()
	return resp
}

// pushBlob uploads content to repo and returns its descriptor.
func (r *ociRegistry) pushBlob(t testing.TB, repo, mediaType string, content []byte) ocispec.Descriptor {
	t.Helper()
	d := digest.FromBytes(content)
	resp := r.do(t, http.MethodPost, "/v2/"+repo+"/blobs/uploads/", "", nil)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusAccepted || loc == "" {
		t.Fatalf("start upload to %s: got %s (Location %q), want 202 with a Location", repo, resp.Status, loc)
	}
	if !strings.HasPrefix(loc, "http") {
		loc = r.URL + loc
	}
	sep := "?"
	if strings.Contains(loc, "?") {
		sep = "&"
	}
	if resp := r.do(t, http.MethodPut, loc+sep+"digest="+d.String(), "application/octet-stream", content); resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload blob %s to %s: got %s, want 201", d, repo, resp.Status)
	}
	return ocispec.Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(content))}
}

// pushManifest stores a manifest or index under repo:ref.
func (r *ociRegistry) pushManifest(t testing.TB, repo, ref, mediaType string, v any) ocispec.Descriptor {
	t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if resp := r.do(t, http.MethodPut, "/v2/"+repo+"/manifests/"+ref, mediaType, body); resp.StatusCode != http.StatusCreated {
		t.Fatalf("push manifest %s:%s: got %s, want 201", repo, ref, resp.Status)
	}
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(body), Size: int64(len(body))}
}

// pushImage stores a one-layer image whose config names platform.
func (r *ociRegistry) pushImage(t testing.TB, repo, tag string, platform ocispec.Platform) ocispec.Descriptor {
	t.Helper()
	layer := r.pushBlob(t, repo, ocispec.MediaTypeImageLayer, []byte("layer of "+repo+" "+platform.Architecture))
	cfg, err := json.Marshal(ocispec.Image{Platform: platform,
		RootFS: ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{layer.Digest}}})
	if err != nil {
		t.Fatal(err)
	}
	config := r.pushBlob(t, repo, ocispec.MediaTypeImageConfig, cfg)
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: config, Layers: []ocispec.Descriptor{layer}}
	m.SchemaVersion = 2
	return r.pushManifest(t, repo, tag, ocispec.MediaTypeImageManifest, m)
}

// pushIndex stores an index of one image per platform, plus a buildx-style
// attestation entry (platform unknown/unknown) that must be ignored.
func (r *ociRegistry) pushIndex(t testing.TB, repo, tag string, platforms ...ocispec.Platform) ocispec.Descriptor {
	t.Helper()
	idx := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex}
	idx.SchemaVersion = 2
	for i, p := range platforms {
		d := r.pushImage(t, repo, "part-"+string(rune('a'+i)), p)
		d.Platform = &ocispec.Platform{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant}
		idx.Manifests = append(idx.Manifests, d)
	}
	att := r.pushImage(t, repo, "attestation", ocispec.Platform{OS: "unknown", Architecture: "unknown"})
	att.Platform = &ocispec.Platform{OS: "unknown", Architecture: "unknown"}
	att.Annotations = map[string]string{"vnd.docker.reference.type": "attestation-manifest"}
	idx.Manifests = append(idx.Manifests, att)
	return r.pushManifest(t, repo, tag, ocispec.MediaTypeImageIndex, idx)
}
