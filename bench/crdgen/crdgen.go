// Package crdgen generates CustomResourceDefinitions for benchmarks: a
// small one like a typical operator's, and a large one the size of
// cert-manager's biggest (deep schemas, long descriptions).
package crdgen

import (
	"encoding/json"
	"fmt"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Small is a namespaced CRD of kind Thing in group with a short schema,
// a status subresource and two printer columns.
func Small(group string) *apiextv1.CustomResourceDefinition {
	spec := props(map[string]apiextv1.JSONSchemaProps{
		"size":  {Type: "integer", Description: "How big the thing is."},
		"color": {Type: "string", Enum: []apiextv1.JSON{{Raw: []byte(`"red"`)}, {Raw: []byte(`"blue"`)}}},
		"tags":  {Type: "object", AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextv1.JSONSchemaProps{Type: "string"}}},
	})
	return crd(group, spec)
}

// Big is a CRD like Small whose spec schema has nested objects with long
// descriptions, grown until its JSON is at least minBytes.
func Big(group string, minBytes int) *apiextv1.CustomResourceDefinition {
	desc := strings.Repeat("This field configures one aspect of the thing, as an issuer's solver would. ", 12)
	spec := props(map[string]apiextv1.JSONSchemaProps{})
	for i := 0; size(crd(group, spec)) < minBytes; i++ {
		section := props(map[string]apiextv1.JSONSchemaProps{})
		for j := 0; j < 20; j++ {
			section.Properties[fmt.Sprintf("field%d", j)] = apiextv1.JSONSchemaProps{Type: "string", Description: desc}
		}
		section.Description = desc
		spec.Properties[fmt.Sprintf("section%d", i)] = section
	}
	return crd(group, spec)
}

// Thing is a JSON object of the generated kind, named name.
func Thing(group, name string, size int) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Thing","metadata":{"name":%q,"namespace":"default"},"spec":{"size":%d,"color":"red","tags":{"a":"b"}}}`,
		group, name, size))
}

func props(p map[string]apiextv1.JSONSchemaProps) apiextv1.JSONSchemaProps {
	return apiextv1.JSONSchemaProps{Type: "object", Properties: p}
}

func crd(group string, spec apiextv1.JSONSchemaProps) *apiextv1.CustomResourceDefinition {
	root := props(map[string]apiextv1.JSONSchemaProps{"spec": spec,
		"status": props(map[string]apiextv1.JSONSchemaProps{"phase": {Type: "string"}})})
	return &apiextv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "things." + group},
		Spec: apiextv1.CustomResourceDefinitionSpec{Group: group, Scope: apiextv1.NamespaceScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "things", Kind: "Thing"},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema:       &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &root},
				Subresources: &apiextv1.CustomResourceSubresources{Status: &apiextv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: []apiextv1.CustomResourceColumnDefinition{
					{Name: "Size", Type: "integer", JSONPath: ".spec.size"}, {Name: "Color", Type: "string", JSONPath: ".spec.color"}},
			}}},
	}
}

// JSON encodes a generated CRD.
func JSON(c *apiextv1.CustomResourceDefinition) []byte {
	data, err := json.Marshal(c)
	if err != nil {
		panic(err) // the generated types always encode
	}
	return data
}

func size(c *apiextv1.CustomResourceDefinition) int { return len(JSON(c)) }
