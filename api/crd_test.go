package api

import (
	"encoding/json"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

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
