package apiserver

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// built is a lazy document's content, built and inflated.
func built(t *testing.T, d *lazyDoc) []byte {
	t.Helper()
	gz, err := d.get()
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func gadgetKind() *api.Resource {
	return api.NewUnstructured(api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "gadgets",
		Singular: "gadget", Kind: "Gadget", Namespaced: true})
}

// TestOpenAPIV3HasSchemas: each group version's document carries the
// schemas of its kinds, marked with their GVK, and what they refer to.
func TestOpenAPIV3HasSchemas(t *testing.T) {
	docs, err := buildOpenAPI(registry.BuiltinKinds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(built(t, docs.docs["apis/apps/v1"]), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Components.Schemas
	gvk, _ := json.Marshal(s["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"])
	if string(gvk) != `[{"group":"apps","kind":"Deployment","version":"v1"}]` {
		t.Fatalf("Deployment gvk %s", gvk)
	}
	for _, name := range []string{"io.k8s.api.apps.v1.DeploymentStrategy", "io.k8s.api.core.v1.PodSpec",
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.util.intstr.IntOrString"} {
		if s[name] == nil {
			t.Errorf("apps/v1 document lacks %s", name)
		}
	}
	if s["io.k8s.api.core.v1.ConfigMap"] != nil {
		t.Error("apps/v1 document carries ConfigMap, which none of its kinds refers to")
	}
}

// TestOpenAPIRebuildKeepsUnchangedDocuments: adding a kind changes the
// hash of its group version's document only; the others are kept, built.
func TestOpenAPIRebuildKeepsUnchangedDocuments(t *testing.T) {
	kinds := registry.BuiltinKinds()
	before, err := buildOpenAPI(kinds, nil)
	if err != nil {
		t.Fatal(err)
	}
	built(t, before.docs["api/v1"])
	if err := kinds.Add(gadgetKind()); err != nil {
		t.Fatal(err)
	}
	after, err := buildOpenAPI(kinds, before)
	if err != nil {
		t.Fatal(err)
	}
	if after.docs["api/v1"] != before.docs["api/v1"] {
		t.Fatal("the api/v1 document was rebuilt though its kinds did not change")
	}
	if after.docs["apis/example.bramble.dev/v1"] == nil {
		t.Fatal("no document for the added kind's group version")
	}
	withSchema := gadgetKind()
	withSchema.Schema = []byte(`{"type":"object"}`)
	if docHash([]*api.Resource{withSchema}) == docHash([]*api.Resource{gadgetKind()}) {
		t.Fatal("a kind's own schema does not change its document's hash")
	}
}

// TestOpenAPIV2MergePatchOnlyForKindsAddedAtRunTime: kubectl must not
// send strategic merge patches to a kind without Go types.
func TestOpenAPIV2MergePatchOnlyForKindsAddedAtRunTime(t *testing.T) {
	kinds := registry.BuiltinKinds()
	if err := kinds.Add(gadgetKind()); err != nil {
		t.Fatal(err)
	}
	var parsed openapiv2.Document
	if err := proto.Unmarshal(built(t, buildOpenAPIV2(kinds, nil).protobuf), &parsed); err != nil {
		t.Fatal(err)
	}
	consumes := map[string]string{}
	for _, p := range parsed.GetPaths().GetPath() {
		consumes[p.GetName()] = strings.Join(p.GetValue().GetPatch().GetConsumes(), ",")
	}
	if c := consumes["/apis/example.bramble.dev/v1/namespaces/{namespace}/gadgets/{name}"]; c == "" || strings.Contains(c, "strategic") {
		t.Errorf("gadgets PATCH consumes %q, want merge patches without strategic", c)
	}
	if c := consumes["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]; !strings.Contains(c, "application/strategic-merge-patch+json") {
		t.Errorf("deployments PATCH consumes %q, want strategic merge patches", c)
	}
	found := false
	for _, def := range parsed.GetDefinitions().GetAdditionalProperties() {
		if def.GetName() == "io.k8s.api.apps.v1.Deployment" {
			found = strings.Contains(def.GetValue().GetDescription(), "declarative updates")
		}
	}
	if !found {
		t.Error("the v2 definitions lack Deployment and its description")
	}
}

// TestOpenAPIServedGzip: documents go out gzip'd to clients that accept
// it and plain to others; a client holding the document gets a 304.
func TestOpenAPIServedGzip(t *testing.T) {
	e := newTestEnv(t)
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	e.get("/openapi/v3").must(t, http.StatusOK).into(t, &index)
	url := e.srv.URL + index.Paths["api/v1"].URL
	get := func(encoding, etag string) (*http.Response, []byte) {
		hr, _ := http.NewRequest("GET", url, nil)
		hr.Header.Set("Authorization", "Bearer admin-token")
		hr.Header.Set("Accept-Encoding", encoding) // set by hand: Go's transport leaves the body compressed
		if etag != "" {
			hr.Header.Set("If-None-Match", etag)
		}
		resp, err := e.client.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	resp, gz := get("gzip", "")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("got Content-Encoding %q, want gzip", resp.Header.Get("Content-Encoding"))
	}
	resp, plain := get("identity", "")
	if resp.Header.Get("Content-Encoding") != "" || !json.Valid(plain) {
		t.Fatalf("a client without gzip got Content-Encoding %q and %d bytes", resp.Header.Get("Content-Encoding"), len(plain))
	}
	if len(gz)*3 > len(plain) {
		t.Fatalf("gzip'd %d bytes, plain %d: want at least 3x smaller", len(gz), len(plain))
	}
	if resp, _ := get("gzip", resp.Header.Get("ETag")); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("got %d with the current ETag, want 304", resp.StatusCode)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for enc, want := range map[string]bool{
		"gzip": true, "gzip, deflate": true, "deflate, GZIP;q=0.5": true, "gzip;q=0": false,
		"identity": false, "": false, "x-gzip": false,
	} {
		r, _ := http.NewRequest("GET", "/", nil)
		r.Header.Set("Accept-Encoding", enc)
		if got := acceptsGzip(r); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", enc, got, want)
		}
	}
}
