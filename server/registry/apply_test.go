package registry

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bramble-edge/bramble/api"
)

// deployApplying is a Deployment apply configuration whose pod template
// has one container, name=image.
func deployApplying(container, image string) []byte {
	return []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{
		"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"` + container + `","image":"` + image + `"}]}}}}`)
}

func applyAs(t *testing.T, r *Registry, res *api.Resource, manager string, body []byte, force bool) (api.Object, error) {
	t.Helper()
	out, err := r.Apply(context.Background(), res, "default", "web", "", body,
		WriteOptions{FieldManager: manager, FieldValidation: ValidationStrict, Force: force})
	if err != nil {
		return nil, err
	}
	return out.Object, nil
}

func images(obj api.Object) map[string]string {
	out := map[string]string{}
	for _, c := range obj.(*appsv1.Deployment).Spec.Template.Spec.Containers {
		out[c.Name] = c.Image
	}
	return out
}

// TestApplyMergesContainersByName: the pod template's containers are a
// list keyed by name, so two managers each own their own container; a
// change to the other's is a conflict naming its manager.
func TestApplyMergesContainersByName(t *testing.T) {
	r := newTestRegistry(t)
	deploys := api.MustLookup("apps", "v1", "deployments")
	if _, err := applyAs(t, r, deploys, "team-a", deployApplying("a", "nginx:1"), false); err != nil {
		t.Fatal(err)
	}
	obj, err := applyAs(t, r, deploys, "team-b", deployApplying("b", "redis:7"), false)
	if err != nil {
		t.Fatalf("second manager's container: %v", err)
	}
	if got := images(obj); len(got) != 2 || got["a"] != "nginx:1" || got["b"] != "redis:7" {
		t.Fatalf("got containers %v, want a=nginx:1 and b=redis:7", got)
	}
	if obj, err = applyAs(t, r, deploys, "team-a", deployApplying("a", "nginx:2"), false); err != nil {
		t.Fatalf("first manager updating its own container: %v", err)
	}
	if got := images(obj); got["a"] != "nginx:2" || got["b"] != "redis:7" {
		t.Fatalf("got containers %v, want a=nginx:2 and b kept", got)
	}
	_, err = applyAs(t, r, deploys, "team-b", deployApplying("a", "nginx:3"), false)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "team-a"`) ||
		!strings.Contains(err.Error(), `.spec.template.spec.containers[name="a"].image`) {
		t.Fatalf("got %v, want a 409 naming team-a and the field", err)
	}
	if obj, err = applyAs(t, r, deploys, "team-b", deployApplying("b", "redis:8"), true); err != nil {
		t.Fatal(err)
	}
	if got := images(obj); got["a"] != "nginx:2" || got["b"] != "redis:8" {
		t.Fatalf("got containers %v, want a kept and b=redis:8", got)
	}
}

// TestApplyKindWithoutSchemaMergesListsWhole: a kind added at run time
// without a schema keeps the deduced merge (lists atomic), so a second
// manager's list is a conflict.
func TestApplyKindWithoutSchemaMergesListsWhole(t *testing.T) {
	r := newTestRegistry(t)
	res := api.NewUnstructured(api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "gadgets",
		Singular: "gadget", Kind: "Gadget", Namespaced: true})
	if err := r.Kinds().Add(res); err != nil {
		t.Fatal(err)
	}
	gadget := func(item string) []byte {
		return []byte(`{"apiVersion":"example.bramble.dev/v1","kind":"Gadget","metadata":{"name":"web"},"spec":{"parts":[{"name":"` + item + `"}]}}`)
	}
	if _, err := applyAs(t, r, res, "team-a", gadget("a"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := applyAs(t, r, res, "team-b", gadget("b"), false); !apierrors.IsConflict(err) {
		t.Fatalf("got %v, want a conflict on the atomic list", err)
	}
}

// TestApplyKindWithItsOwnSchema: a kind added at run time with a schema
// merges by it (here a list of type map keyed by name).
func TestApplyKindWithItsOwnSchema(t *testing.T) {
	r := newTestRegistry(t)
	res := api.NewUnstructured(api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "gadgets",
		Singular: "gadget", Kind: "Gadget", Namespaced: true})
	res.Schema = []byte(`{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},
		"metadata":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		"spec":{"type":"object","properties":{"parts":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
			"items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}}}`)
	if err := r.Kinds().Add(res); err != nil {
		t.Fatal(err)
	}
	gadget := func(item string) []byte {
		return []byte(`{"apiVersion":"example.bramble.dev/v1","kind":"Gadget","metadata":{"name":"web"},"spec":{"parts":[{"name":"` + item + `"}]}}`)
	}
	if _, err := applyAs(t, r, res, "team-a", gadget("a"), false); err != nil {
		t.Fatal(err)
	}
	obj, err := applyAs(t, r, res, "team-b", gadget("b"), false)
	if err != nil {
		t.Fatalf("second manager's part: %v", err)
	}
	parts, _, _ := unstructured.NestedSlice(obj.(*unstructured.Unstructured).Object, "spec", "parts")
	if len(parts) != 2 {
		t.Fatalf("got parts %v, want a and b", parts)
	}
}
