package registry

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/bramble-edge/bramble/api"
)

// widgetCRD reads testdata/crd_widgets.yaml.
func widgetCRD(t testing.TB) *apiextv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile("testdata/crd_widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatalf("testdata/crd_widgets.yaml: %v", err)
	}
	return crd
}

// createWidgetCRD creates the Widget definition and returns its served v1 kind.
func createWidgetCRD(t testing.TB, r *Registry) *api.Resource {
	t.Helper()
	if _, err := r.Client().Create(context.Background(), widgetCRD(t)); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	res, ok := r.Kinds().Lookup("demo.bramble.dev", "v1", "widgets")
	if !ok {
		t.Fatal("widgets.demo.bramble.dev/v1 not served after the CRD was created")
	}
	return res
}

// decodeWidget decodes a JSON widget as the API does, returning the
// unknown-field warnings too.
func decodeWidget(t testing.TB, res *api.Resource, body string) (*unstructured.Unstructured, []string) {
	t.Helper()
	obj, warns, err := api.DecodeJSON(res, []byte(body), false)
	if err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return obj.(*unstructured.Unstructured), warns
}

// nested reads a nested field of a custom object, as JSON ("absent"
// when missing).
func nested(t testing.TB, obj api.Object, path ...string) string {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(obj.(*unstructured.Unstructured).Object, path...)
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return "absent"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
