package manifests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const shopFile = `apiVersion: example.bramble.dev/v1
kind: Gadget
metadata: {name: g1, namespace: shop}
spec: {size: 3}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  annotations: {deploy.bramble.dev/delete-with-file: "true"}
`

var gadgets = api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "gadgets", Singular: "gadget",
	Kind: "Gadget", Namespaced: true}

// TestSyncRetriesUntilTheKindIsServed: a custom resource whose kind is
// not served yet fails its document (recorded with the file and index)
// while the rest applies; once the kind is served (its CRD established)
// the next pass applies it and records the file's hash. An opted-in
// object taken out of the file is then deleted.
func TestSyncRetriesUntilTheKindIsServed(t *testing.T) {
	e := controllertest.New(t)
	dir := t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, "shop.yaml"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(shopFile)
	d := New(e.Registry, Config{Dir: dir, Log: e.Log})
	rec := syncAndLoad(t, e, d)
	if rec.Hash != "" || !strings.Contains(rec.Error, "shop.yaml document 1 (Gadget shop/g1): the server does not serve kind Gadget") {
		t.Fatalf("first pass: hash %q error %q, want no hash and an error naming document 1", rec.Hash, rec.Error)
	}
	cms := api.MustLookup("", "v1", "configmaps")
	if _, err := e.Registry.Get(e.Ctx, cms, "shop", "settings"); err != nil {
		t.Fatalf("the other documents were not applied: %v", err)
	}
	if err := e.Registry.Kinds().Add(api.NewUnstructured(gadgets)); err != nil {
		t.Fatal(err)
	}
	if rec = syncAndLoad(t, e, d); rec.Hash == "" || rec.Error != "" || len(rec.Objects) != 3 {
		t.Fatalf("second pass: %+v, want a hash, no error, three objects", rec)
	}
	res, _ := e.Registry.Kinds().Lookup("example.bramble.dev", "v1", "gadgets")
	if _, err := e.Registry.Get(e.Ctx, res, "shop", "g1"); err != nil {
		t.Fatalf("gadget not applied: %v", err)
	}
	write(shopFile[:strings.LastIndex(shopFile, "---")])
	if rec = syncAndLoad(t, e, d); len(rec.Objects) != 2 {
		t.Fatalf("third pass: %+v, want two objects", rec)
	}
	if _, err := e.Registry.Get(e.Ctx, cms, "shop", "settings"); err == nil {
		t.Fatal("the opted-in ConfigMap taken out of the file still exists")
	}
}

func syncAndLoad(t *testing.T, e *controllertest.Env, d *Deployer) record {
	t.Helper()
	if err := d.Sync(e.Ctx); err != nil {
		t.Fatal(err)
	}
	recs, err := loadRecords(e.Ctx, e.Registry)
	if err != nil {
		t.Fatal(err)
	}
	return recs["shop.yaml"]
}
