package apiserver

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/server/registry"
)

var updateOpenAPI = flag.Bool("update-openapi", false, "write the prebuilt OpenAPI v3 documents")

// TestPrebuiltOpenAPIIsCurrent holds the embedded documents to what the
// server builds for the built-in kinds, content for content, and checks
// none is left that no built-in group version names:
//
//	go test ./server/apiserver -run TestPrebuiltOpenAPIIsCurrent -update-openapi
//
// rewrites them after a change to the kinds, the schemas or this
// package's OpenAPI code.
func TestPrebuiltOpenAPIIsCurrent(t *testing.T) {
	kinds := registry.BuiltinKinds()
	named := map[string]bool{}
	for _, gv := range kinds.GroupVersions() {
		ks := kindsOf(kinds, gv)
		name := docHash(ks) + ".json.gz"
		named[name] = true
		raw, err := gvOpenAPI(ks)
		if err != nil {
			t.Fatal(err)
		}
		if *updateOpenAPI {
			if err := os.WriteFile(filepath.Join(prebuiltV3Dir, name), gzipBytes(raw), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		gz := prebuiltOpenAPI(docHash(ks))
		if gz == nil {
			t.Errorf("%s: no prebuilt document (run with -update-openapi)", gvPath(gv))
			continue
		}
		if got := inflate(t, gz); !bytes.Equal(got, raw) {
			t.Errorf("%s: the prebuilt document is stale (run with -update-openapi)", gvPath(gv))
		}
	}
	entries, err := os.ReadDir(prebuiltV3Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if named[e.Name()] {
			continue
		}
		if *updateOpenAPI {
			if err := os.Remove(filepath.Join(prebuiltV3Dir, e.Name())); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: no built-in group version's document (run with -update-openapi)", e.Name())
	}
}

// TestPrebuiltOpenAPIServedAsBuilt: a built-in group version's document
// comes from the embedded ones; one whose kinds changed is built.
func TestPrebuiltOpenAPIServedAsBuilt(t *testing.T) {
	kinds := registry.BuiltinKinds()
	docs, err := buildOpenAPI(kinds, nil)
	if err != nil {
		t.Fatal(err)
	}
	apps := docs.docs["apis/apps/v1"]
	gz, err := apps.get()
	if err != nil {
		t.Fatal(err)
	}
	if want := prebuiltOpenAPI(apps.hash); want == nil || !bytes.Equal(gz, want) {
		t.Fatal("apps/v1 was not served from the prebuilt documents")
	}
	ks := append(kindsOf(kinds, schema.GroupVersion{Group: "apps", Version: "v1"}), gadgetKind())
	if prebuiltOpenAPI(docHash(ks)) != nil {
		t.Fatal("a prebuilt document for kinds changed at run time")
	}
}

func inflate(t *testing.T, gz []byte) []byte {
	t.Helper()
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
