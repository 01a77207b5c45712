package apiserver

import (
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"sigs.k8s.io/yaml"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// TestOpenAPIV2DeclaresFieldValidation decodes the protobuf document the way
// kubectl 1.27/1.28 do and checks every kind's PATCH operation carries its
// GVK and the fieldValidation query parameter.
func TestOpenAPIV2DeclaresFieldValidation(t *testing.T) {
	pb := built(t, buildOpenAPIV2(registry.BuiltinKinds(), nil).protobuf)
	var parsed openapiv2.Document
	if err := proto.Unmarshal(pb, &parsed); err != nil {
		t.Fatalf("protobuf does not decode: %v", err)
	}
	found := map[string]bool{}
	for _, p := range parsed.GetPaths().GetPath() {
		op := p.GetValue().GetPatch()
		var gvk struct{ Group, Version, Kind string }
		for _, ext := range op.GetVendorExtension() {
			if ext.GetName() == "x-kubernetes-group-version-kind" {
				if err := yaml.Unmarshal([]byte(ext.GetValue().GetYaml()), &gvk); err != nil {
					t.Fatalf("%s: gvk extension: %v", p.GetName(), err)
				}
			}
		}
		for _, param := range op.GetParameters() {
			if param.GetParameter().GetNonBodyParameter().GetQueryParameterSubSchema().GetName() == "fieldValidation" {
				found[gvk.Group+"/"+gvk.Kind] = true
			}
		}
	}
	for _, res := range api.All() {
		if !found[res.Group+"/"+res.Kind] {
			t.Errorf("%s/%s: no PATCH operation with fieldValidation", res.Group, res.Kind)
		}
	}
}

func TestAcceptsOpenAPIV2Protobuf(t *testing.T) {
	for accept, want := range map[string]bool{
		"application/com.github.proto-openapi.spec.v2@v1.0+protobuf":                   true,
		"application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf": true,
		"application/json": false,
		"":                 false,
	} {
		if got := acceptsOpenAPIV2Protobuf(accept); got != want {
			t.Errorf("acceptsOpenAPIV2Protobuf(%q) = %v, want %v", accept, got, want)
		}
	}
}
