package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestSchedulerAsksTheRegistry runs the real server with a registries
// file pointing registry.e2e.invalid at an OCI registry on loopback, over
// plain HTTP, and hollow amd64 and arm64 nodes that report no images. The
// scheduler learns the platforms from the registry: pods of an image
// published for linux/arm64 only land on arm64 nodes; a pod of an
// arm/v7-only image stays Pending with the architecture reason; a pod of
// an image the registry does not have is placed as if nothing were known.
func TestSchedulerAsksTheRegistry(t *testing.T) {
	reg := startE2ERegistry(t)
	reg.pushIndex(t, "edge/sensor", "1", ocispec.Platform{OS: "linux", Architecture: "arm64"})
	reg.pushImage(t, "edge/legacy", "1", ocispec.Platform{OS: "linux", Architecture: "arm", Variant: "v7"})
	regFile := filepath.Join(t.TempDir(), "registries.yaml")
	yaml := fmt.Sprintf("mirrors:\n  registry.e2e.invalid:\n    endpoint: [%q]\n", reg.URL)
	if err := os.WriteFile(regFile, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	s := cluster.StartServer(t, "--registries", regFile)
	token := cluster.JoinToken(t, s)
	startFleet(t, s, token, hollownode.Config{Prefix: "amd", Nodes: 2, Arch: "amd64", CPU: resource.MustParse("8"), Memory: resource.MustParse("16Gi")})
	startFleet(t, s, token, hollownode.Config{Prefix: "arm", Nodes: 2, Arch: "arm64", CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi")})
	waitNodes(t, s, 4)

	var manifest strings.Builder
	for i := range 8 {
		manifest.WriteString(schedPod(fmt.Sprintf("sensor-%d", i), "sensor", "registry.e2e.invalid/edge/sensor:1", "", "50m", "32Mi"))
	}
	manifest.WriteString(schedPod("legacy", "legacy", "registry.e2e.invalid/edge/legacy:1", "", "50m", "32Mi"))
	manifest.WriteString(schedPod("unlisted", "unlisted", "registry.e2e.invalid/edge/unlisted:1", "", "50m", "32Mi"))
	if _, stderr, err := s.Apply(manifest.String()); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	pods := waitBound(t, s, 10)
	for _, p := range pods {
		switch {
		case p.Name == "legacy" && p.Spec.NodeName != "":
			t.Errorf("pod legacy of the arm/v7-only image: got node %s, want it Pending", p.Spec.NodeName)
		case strings.HasPrefix(p.Name, "sensor-") && !strings.HasPrefix(p.Spec.NodeName, "arm-"):
			t.Errorf("pod %s of the arm64-only image: got node %q, want an arm64 node", p.Name, p.Spec.NodeName)
		}
	}
	want := "0/4 nodes are available: 4 node(s) didn't match the image's architecture (image supports linux/arm/v7)."
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "legacy", "-o", `jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}`)
		// the preemption part that follows ("preemption: ...") is the
		// preemptor's, as upstream's message continues
		return err == nil && strings.HasPrefix(out, want)
	}, "pod legacy's PodScheduled condition to give the architecture reason")
	if reg.manifestRequests.Load() == 0 {
		t.Errorf("registry: got no manifest request, want the server to have asked it")
	}
	logRegistryPods(t, pods)
}

func logRegistryPods(t *testing.T, pods []corev1.Pod) {
	placed := map[string]string{}
	for _, p := range pods {
		placed[p.Name] = p.Spec.NodeName
	}
	t.Logf("placement: %v", placed)
}

// e2eRegistry is go-containerregistry's in-memory registry on loopback,
// in plain HTTP, counting manifest requests.
type e2eRegistry struct {
	*httptest.Server
	manifestRequests atomic.Int64
}

func startE2ERegistry(t *testing.T) *e2eRegistry {
	t.Helper()
	r := &e2eRegistry{}
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.Contains(req.URL.Path, "/manifests/") && req.Method != http.MethodPut {
			r.manifestRequests.Add(1)
		}
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// push sends one request to the registry and checks its status.
func (r *e2eRegistry) push(t *testing.T, method, target, contentType string, body []byte, want int) *http.Response {
	t.Helper()
	if !strings.HasPrefix(target, "http") {
		target = r.URL + target
	}
	req, err := http.NewRequest(method, target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: got %s, want %d", method, target, resp.Status, want)
	}
	return resp
}

// pushBlob uploads content (start an upload, then put it whole).
func (r *e2eRegistry) pushBlob(t *testing.T, repo, mediaType string, content []byte) ocispec.Descriptor {
	t.Helper()
	d := digest.FromBytes(content)
	loc := r.push(t, http.MethodPost, "/v2/"+repo+"/blobs/uploads/", "", nil, http.StatusAccepted).Header.Get("Location")
	sep := "?"
	if strings.Contains(loc, "?") {
		sep = "&"
	}
	r.push(t, http.MethodPut, loc+sep+"digest="+d.String(), "application/octet-stream", content, http.StatusCreated)
	return ocispec.Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(content))}
}

func (r *e2eRegistry) pushManifest(t *testing.T, repo, ref, mediaType string, v any) ocispec.Descriptor {
	t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	r.push(t, http.MethodPut, "/v2/"+repo+"/manifests/"+ref, mediaType, body, http.StatusCreated)
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(body), Size: int64(len(body))}
}

// pushImage stores a one-layer image whose config names platform.
func (r *e2eRegistry) pushImage(t *testing.T, repo, tag string, platform ocispec.Platform) ocispec.Descriptor {
	t.Helper()
	layer := r.pushBlob(t, repo, ocispec.MediaTypeImageLayer, []byte(repo+" "+platform.Architecture))
	cfg, err := json.Marshal(ocispec.Image{Platform: platform, RootFS: ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{layer.Digest}}})
	if err != nil {
		t.Fatal(err)
	}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Layers: []ocispec.Descriptor{layer},
		Config: r.pushBlob(t, repo, ocispec.MediaTypeImageConfig, cfg)}
	m.SchemaVersion = 2
	return r.pushManifest(t, repo, tag, ocispec.MediaTypeImageManifest, m)
}

// pushIndex stores an index with one image per platform.
func (r *e2eRegistry) pushIndex(t *testing.T, repo, tag string, platforms ...ocispec.Platform) {
	t.Helper()
	idx := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex}
	idx.SchemaVersion = 2
	for _, p := range platforms {
		d := r.pushImage(t, repo, "only-"+p.Architecture, p)
		d.Platform = &ocispec.Platform{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant}
		idx.Manifests = append(idx.Manifests, d)
	}
	r.pushManifest(t, repo, tag, ocispec.MediaTypeImageIndex, idx)
}
