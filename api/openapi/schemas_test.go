package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/api"
)

func gadget(schema string) *api.Resource {
	res := api.NewUnstructured(api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "gadgets",
		Singular: "gadget", Kind: "Gadget", Namespaced: true})
	if schema != "" {
		res.Schema = []byte(schema)
	}
	return res
}

func TestKindAddedAtRunTimeWithoutSchemaIsPermissive(t *testing.T) {
	defs := loadSchemas(t, []*api.Resource{gadget("")})
	g := defs["dev.bramble.example.v1.Gadget"]
	if g["x-kubernetes-preserve-unknown-fields"] != true {
		t.Fatalf("Gadget schema %v is not permissive", g)
	}
	wantJSON(t, "gvk", g["x-kubernetes-group-version-kind"], `[{"group":"example.bramble.dev","kind":"Gadget","version":"v1"}]`)
	items := path(t, defs, "dev.bramble.example.v1.GadgetList", "items", "[]")
	wantJSON(t, "list items", items, `{"$ref":"#/components/schemas/dev.bramble.example.v1.Gadget"}`)
	if defs["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"] == nil || defs["io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"] == nil {
		t.Fatal("the metadata definitions the Gadget refers to are missing")
	}
	if _, ok := defs["io.k8s.api.core.v1.Pod"]; ok {
		t.Fatal("definitions no Gadget refers to are included")
	}
}

// TestKindAddedAtRunTimeCarriesItsSchema: a row's own schema is served,
// with its references to built-in definitions resolved.
func TestKindAddedAtRunTimeCarriesItsSchema(t *testing.T) {
	defs := loadSchemas(t, []*api.Resource{gadget(`{"type": "object", "properties": {
		"metadata": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		"spec": {"type": "object", "description": "What the gadget should be.",
			"properties": {"size": {"type": "integer"}, "port": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}}}}}`)})
	spec := path(t, defs, "dev.bramble.example.v1.Gadget", "spec")
	if spec["description"] != "What the gadget should be." {
		t.Fatalf("spec %v", spec)
	}
	if defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] == nil {
		t.Fatal("IntOrString, referred to from the row's schema, is missing")
	}
}

func TestSchemasRefusesDanglingReferences(t *testing.T) {
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Schemas([]*api.Resource{gadget(`{"type":"object","properties":{"x":{"$ref":"#/components/schemas/no.such.Thing"}}}`)})
	if err == nil || !strings.Contains(err.Error(), "no.such.Thing") {
		t.Fatalf("got %v, want an error naming the missing definition", err)
	}
	_, err = d.Schemas([]*api.Resource{gadget(`{"type":`)})
	if err == nil {
		t.Fatal("a row schema that is not JSON was accepted")
	}
}

func TestV2(t *testing.T) {
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	v3, err := d.Schemas(api.All())
	if err != nil {
		t.Fatal(err)
	}
	v2, err := d.V2(v3)
	if err != nil {
		t.Fatal(err)
	}
	for name, def := range v2 {
		if strings.Contains(string(def), RefPrefix) {
			t.Errorf("%s: v2 form still has %s: %s", name, RefPrefix, def)
		}
		var m any
		_ = json.Unmarshal(def, &m)
		if kw := v3Keyword(m); kw != "" {
			t.Errorf("%s: v2 form still has %q: %s", name, kw, def)
		}
	}
	var ios, strategy map[string]any
	_ = json.Unmarshal(v2["io.k8s.apimachinery.pkg.util.intstr.IntOrString"], &ios)
	wantJSON(t, "IntOrString v2 type", []any{ios["type"], ios["format"]}, `["string","int-or-string"]`)
	_ = json.Unmarshal(v2["io.k8s.api.apps.v1.DeploymentSpec"], &strategy)
	wantJSON(t, "v2 strategy", strategy["properties"].(map[string]any)["strategy"],
		`{"$ref":"#/definitions/io.k8s.api.apps.v1.DeploymentStrategy","default":{},"description":"The deployment strategy to use to replace existing pods with new ones.","x-kubernetes-patch-strategy":"retainKeys"}`)
}

// TestV2KeepsPropertiesNamedLikeKeywords: only schema keywords are
// dropped, never a property that happens to share their name.
func TestV2KeepsPropertiesNamedLikeKeywords(t *testing.T) {
	d := &Definitions{}
	out, err := d.V2(map[string]json.RawMessage{"x": json.RawMessage(`{"type":"object","nullable":true,"properties":{"not":{"type":"string"},"deprecated":{"type":"boolean","nullable":true}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out["x"]); got != `{"properties":{"deprecated":{"type":"boolean"},"not":{"type":"string"}},"type":"object"}` {
		t.Fatalf("got %s", got)
	}
}

// v3Keyword finds an allOf or oneOf keyword in a schema, not counting
// property names (apiextensions' JSONSchemaProps has properties so named).
func v3Keyword(v any) string {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if kw := v3Keyword(e); kw != "" {
				return kw
			}
		}
	case map[string]any:
		for k, e := range x {
			if k == "allOf" || k == "oneOf" {
				return k
			}
			if k == "properties" {
				e = valuesOf(e)
			}
			if kw := v3Keyword(e); kw != "" {
				return kw
			}
		}
	}
	return ""
}

// valuesOf lists a properties map's schemas.
func valuesOf(v any) []any {
	m, _ := v.(map[string]any)
	out := make([]any, 0, len(m))
	for _, x := range m {
		out = append(out, x)
	}
	return out
}
