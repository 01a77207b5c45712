package registry

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// TestCRDValidation: upstream's rules for the definition itself, and
// conversion webhooks refused by name.
func TestCRDValidation(t *testing.T) {
	r := newTestRegistry(t)
	for _, tc := range []struct {
		change func(*apiextv1.CustomResourceDefinition)
		want   string
	}{
		{func(c *apiextv1.CustomResourceDefinition) { c.Name = "gadgets.demo.bramble.dev" }, "metadata.name"},
		{func(c *apiextv1.CustomResourceDefinition) { c.Spec.Group = "nodots" }, "spec.group"},
		{func(c *apiextv1.CustomResourceDefinition) { c.Spec.Scope = "Galaxy" }, "spec.scope: Unsupported value"},
		{func(c *apiextv1.CustomResourceDefinition) {
			c.Name, c.Spec.Group = "widgets.demo.k8s.io", "demo.k8s.io"
		}, "metadata.annotations[api-approved.kubernetes.io]: Required value"},
		{func(c *apiextv1.CustomResourceDefinition) { c.Spec.Names.ShortNames = []string{"Bad_Name"} }, "spec.names.shortNames[0]"},
		{func(c *apiextv1.CustomResourceDefinition) { c.Spec.Versions[1].Storage = true }, "must have exactly one version marked as storage version"},
		{func(c *apiextv1.CustomResourceDefinition) { c.Spec.Versions[1].Schema = nil }, "spec.versions[1].schema.openAPIV3Schema: Required value"},
		{func(c *apiextv1.CustomResourceDefinition) {
			c.Spec.Conversion = &apiextv1.CustomResourceConversion{Strategy: apiextv1.WebhookConverter}
		}, "spec.conversion.strategy: Invalid value: \"Webhook\""},
		{func(c *apiextv1.CustomResourceDefinition) {
			c.Spec.Versions[0].AdditionalPrinterColumns[0].Type = "color"
		}, "spec.versions[0].additionalPrinterColumns[0].type"},
		{func(c *apiextv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"] = apiextv1.JSONSchemaProps{}
		}, "properties[spec].properties[size].type: Required value"},
	} {
		crd := widgetCRD(t)
		crd.Spec.Versions[0].Schema = crd.Spec.Versions[0].Schema.DeepCopy()
		tc.change(crd)
		_, err := r.Client().Create(context.Background(), crd)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want 422 naming %q", err, tc.want)
		}
	}
}

// TestCRDNameConflict: a second definition of the group that takes a
// used plural is stored but not established, and serves nothing.
func TestCRDNameConflict(t *testing.T) {
	r := newTestRegistry(t)
	createWidgetCRD(t, r)
	crd := widgetCRD(t)
	crd.Name, crd.Spec.Names.Plural, crd.Spec.Names.Kind, crd.Spec.Names.ListKind = "gizmos.demo.bramble.dev", "gizmos", "Gizmo", ""
	crd.Spec.Names.Singular = "widget"
	got, err := r.Client().Create(context.Background(), crd)
	if err != nil {
		t.Fatal(err)
	}
	c := api.CRDCondition(got.(*apiextv1.CustomResourceDefinition), apiextv1.NamesAccepted)
	if c == nil || c.Status != apiextv1.ConditionFalse || c.Reason != "SingularConflict" {
		t.Fatalf("NamesAccepted: got %+v, want False SingularConflict", c)
	}
	if _, ok := r.Kinds().Lookup("demo.bramble.dev", "v1", "gizmos"); ok {
		t.Fatal("a definition whose names conflict is served")
	}
}

// TestCRDDeleteTakesObjects: deleting the definition deletes its objects
// and stops serving its kinds; a restarted registry serves the stored
// definitions again.
func TestCRDDeleteTakesObjects(t *testing.T) {
	ctx := context.Background()
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	r, err := New(ctx, Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	res := createWidgetCRD(t, r)
	obj, _ := decodeWidget(t, res, widgetBody)
	if _, err := r.Create(ctx, res, "default", obj, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	again, err := New(ctx, Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	res2, ok := again.Kinds().Lookup("demo.bramble.dev", "v1beta1", "widgets")
	if !ok {
		t.Fatal("a restarted registry does not serve the stored definition")
	}
	if _, err := again.Delete(ctx, crdResource, "", "widgets.demo.bramble.dev", nil); err != nil {
		t.Fatalf("delete CRD: %v", err)
	}
	if _, ok := again.Kinds().Lookup("demo.bramble.dev", "v1", "widgets"); ok {
		t.Fatal("widgets still served after the CRD was deleted")
	}
	list, err := store.List(ctx, res2.Prefix(""), datastore.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("objects left after the CRD was deleted: %v, %d", err, len(list.Items))
	}
	if _, err := again.Get(ctx, crdResource, "", "widgets.demo.bramble.dev"); !apierrors.IsNotFound(err) {
		t.Fatalf("CRD after delete: %v, want NotFound", err)
	}
}

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

// TestCRDUpdate: a new schema applies to the next write; moving storage
// to another version records it in storedVersions; a stored version may
// not leave spec.versions.
func TestCRDUpdate(t *testing.T) {
	r := newTestRegistry(t)
	ctx := context.Background()
	createWidgetCRD(t, r)
	update := func(change func(*apiextv1.CustomResourceDefinition)) (*apiextv1.CustomResourceDefinition, error) {
		cur, err := r.Get(ctx, crdResource, "", "widgets.demo.bramble.dev")
		if err != nil {
			t.Fatal(err)
		}
		crd := cur.DeepCopyObject().(*apiextv1.CustomResourceDefinition)
		change(crd)
		out, err := r.Client().Update(ctx, crd)
		if err != nil {
			return nil, err
		}
		return out.(*apiextv1.CustomResourceDefinition), nil
	}
	_, err := update(func(c *apiextv1.CustomResourceDefinition) {
		c.Spec.Versions[0].Schema = c.Spec.Versions[0].Schema.DeepCopy()
		size := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"]
		size.Maximum = ptrFloat(100)
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"] = size
	})
	if err != nil {
		t.Fatalf("raise the maximum: %v", err)
	}
	res, _ := r.Kinds().Lookup("demo.bramble.dev", "v1", "widgets")
	obj, _ := decodeWidget(t, res, `{"metadata":{"name":"big","namespace":"default"},"spec":{"size":50}}`)
	if _, err := r.Create(ctx, res, "default", obj, WriteOptions{}); err != nil {
		t.Fatalf("size 50 under the new schema: %v", err)
	}
	crd, err := update(func(c *apiextv1.CustomResourceDefinition) {
		c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = false, true
	})
	if err != nil || strings.Join(crd.Status.StoredVersions, ",") != "v1,v1beta1" {
		t.Fatalf("storage to v1beta1: %v, storedVersions %v", err, crd)
	}
	_, err = update(func(c *apiextv1.CustomResourceDefinition) { c.Spec.Versions = c.Spec.Versions[1:] })
	wantInvalid(t, "drop stored v1", err, "status.storedVersions[0]")
}

func ptrFloat(f float64) *float64 { return &f }
