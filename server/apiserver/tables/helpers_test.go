package tables

import (
	"testing"

	"github.com/bramble-edge/bramble/api"
)

func res(t testing.TB, kind string) *api.Resource {
	t.Helper()
	for _, r := range api.All() {
		if r.Kind == kind {
			return r
		}
	}
	t.Fatalf("no resource of kind %s", kind)
	return nil
}

// decodeYAML decodes a manifest strictly, failing the test on any error.
func decodeYAML(t testing.TB, kind, manifest string) api.Object {
	t.Helper()
	obj, _, err := api.DecodeYAML(res(t, kind), []byte(manifest), true)
	if err != nil {
		t.Fatalf("decode %s: %v", kind, err)
	}
	return obj
}
