package api

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// crdKind is the CRD row (registered by an init function, after package
// variables are set).
func crdKind() *Resource { return MustLookup(apiextv1.GroupName, "v1", "customresourcedefinitions") }

// widgetKind is testdata/crd_widgets.yaml's v1 as a served kind.
func widgetKind(t testing.TB) (*apiextv1.CustomResourceDefinition, *Resource) {
	t.Helper()
	data, err := os.ReadFile("testdata/crd_widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	res, err := NewCustomResource(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	return crd, res
}

// FuzzCustomResourceBody: a custom object's body from the network is
// decoded, pruned, defaulted, validated, printed in field sets and scaled
// without a panic, whatever it holds.
func FuzzCustomResourceBody(f *testing.F) {
	_, res := widgetKind(f)
	for _, s := range []string{
		`{"apiVersion":"demo.bramble.dev/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":3,"ports":[1,2],"tags":{"a":"b"}}}`,
		`{"metadata":{"name":"a"},"spec":{"size":"x","color":null,"template":{"kind":1},"amount":1.5,"ports":[null,{}]},"status":[]}`,
		`{"spec":[],"status":{"replicas":"x"}}`, `{"spec":{"extra":{"a":[{"b":null}]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, _, err := DecodeJSON(res, data, false)
		if err != nil {
			return
		}
		st := res.Strategy()
		st.Default(obj)
		st.PrepareForCreate(res, obj)
		_ = st.ValidateCreate(res, obj)
		_ = FieldSet(res, obj)
		_, _ = ScaleOf(res, obj)
	})
}

// FuzzCRDBody: a CRD the validation accepts always compiles into served
// kinds (its patterns, enums and defaults included), and none of it panics.
func FuzzCRDBody(f *testing.F) {
	crd, _ := widgetKind(f)
	seed, err := Encode(crd)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"metadata":{"name":"a.b.c"},"spec":{"group":"b.c","scope":"Cluster","names":{"plural":"a","kind":"A"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"x":{"type":"string","pattern":"(","default":1}}}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, _, err := DecodeJSON(crdKind(), data, false)
		if err != nil {
			return
		}
		Default(obj)
		if len(ValidateCreate(crdKind(), obj)) > 0 {
			return
		}
		c := obj.(*apiextv1.CustomResourceDefinition)
		_ = CreateWarnings(c)
		for _, v := range c.Spec.Versions {
			if _, err := NewCustomResource(c, v.Name); err != nil {
				t.Fatalf("a valid CRD does not compile: %v", err)
			}
		}
	})
}

// FuzzJSONPath: printer-column paths from a CRD parse or fail cleanly.
func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{".spec.size", `.status.conditions[?(@.type=="Ready")].status`, ".a[0].b", "{.a['b.c'][*]}", "[?(@"} {
		f.Add(s)
	}
	obj := map[string]any{"a": []any{map[string]any{"b": int64(1)}}, "status": map[string]any{
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}}
	f.Fuzz(func(t *testing.T, s string) {
		if p, err := ParseJSONPath(s); err == nil {
			_ = p.Find(obj)
		}
	})
}

func TestJSONPath(t *testing.T) {
	var obj any
	_ = json.Unmarshal([]byte(`{"spec":{"a.b":1,"list":[{"n":"x","v":1},{"n":"y","v":2}]},
		"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"False"}]}}`), &obj)
	for _, tc := range []struct{ path, want string }{
		{".spec.list[1].n", `["y"]`},
		{".spec.list[*].n", `["x","y"]`},
		{"{.spec['a.b']}", `[1]`},
		{`.status.conditions[?(@.type=="Ready")].status`, `["True"]`},
		{`.status.conditions[?(@.type=='Synced')].status`, `["False"]`},
		{".spec.missing", `null`},
	} {
		p, err := ParseJSONPath(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		got, _ := json.Marshal(p.Find(obj))
		if string(got) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
	for _, bad := range []string{"spec", "..spec", ".a[1:2]", ".a[?(@.x>1)]", ".a[", ""} {
		if _, err := ParseJSONPath(bad); err == nil {
			t.Errorf("%q: parsed, want an error", bad)
		}
	}
}

// TestCRDDefaultsAndCELRules: a default that breaks its own schema is
// refused; CEL rules are accepted with a Warning that they are not run.
func TestCRDDefaultsAndCELRules(t *testing.T) {
	crd, _ := widgetKind(t)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	size := spec.Properties["size"]
	size.Default = &apiextv1.JSON{Raw: []byte(`20`)}
	spec.Properties["size"] = size
	spec.XValidations = apiextv1.ValidationRules{{Rule: "self.size > 0"}}
	crd.Spec.Versions[0].Schema = &apiextv1.CustomResourceValidation{OpenAPIV3Schema: crd.Spec.Versions[0].Schema.OpenAPIV3Schema.DeepCopy()}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	errs := ValidateCreate(crdKind(), crd)
	if !strings.Contains(errs.ToAggregate().Error(), "properties[size].default: Invalid value") {
		t.Fatalf("got %v, want the default of size refused", errs)
	}
	if w := CreateWarnings(crd); len(w) != 1 || !strings.Contains(w[0], "x-kubernetes-validations") {
		t.Fatalf("got warnings %q, want one about CEL rules", w)
	}
}
