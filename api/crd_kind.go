package api

import (
	"encoding/json"
	"fmt"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// CustomKind is what one served version of a CustomResourceDefinition
// adds to an unstructured kind: its compiled schema, printer columns,
// selectable fields and scale paths.
type CustomKind struct {
	// CRD is the definition's name (plural.group).
	CRD string
	// StorageVersion is the version objects are stored in.
	StorageVersion string
	// Columns are the version's additionalPrinterColumns with parsed paths.
	Columns []PrinterColumn
	// Scale is the scale subresource's paths, nil without one.
	Scale *apiextv1.CustomResourceSubresourceScale

	schema     *schemaNode
	selectable map[string]JSONPath
}

// PrinterColumn is one additionalPrinterColumns entry.
type PrinterColumn struct {
	apiextv1.CustomResourceColumnDefinition
	Path JSONPath
}

const objectMetaRef = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// NewCustomResource describes the served version named version of crd as
// an unstructured kind with the version's schema, subresources, columns
// and selectable fields. The CRD must have passed validation.
func NewCustomResource(crd *apiextv1.CustomResourceDefinition, version string) (*Resource, error) {
	v := crdVersion(crd, version)
	if v == nil {
		return nil, fmt.Errorf("custom resource %s: no version %s", crd.Name, version)
	}
	n := crd.Spec.Names
	r := Resource{Group: crd.Spec.Group, Version: v.Name, Name: n.Plural, Singular: n.Singular, Kind: n.Kind,
		Namespaced: crd.Spec.Scope == apiextv1.NamespaceScoped, ShortNames: n.ShortNames, Categories: n.Categories}
	ck := &CustomKind{CRD: crd.Name, StorageVersion: StorageVersion(crd), selectable: map[string]JSONPath{}}
	if sub := v.Subresources; sub != nil {
		if sub.Status != nil {
			r.Subresources = append(r.Subresources, "status")
		}
		if sub.Scale != nil {
			r.Subresources, ck.Scale = append(r.Subresources, "scale"), sub.Scale.DeepCopy()
		}
	}
	if err := ck.compile(v); err != nil {
		return nil, fmt.Errorf("custom resource %s %s: %w", crd.Name, v.Name, err)
	}
	var err error
	if r.Schema, err = publishedSchema(v); err != nil {
		return nil, fmt.Errorf("custom resource %s %s: %w", crd.Name, v.Name, err)
	}
	res := NewUnstructured(r)
	res.custom = ck
	return res, nil
}

func crdVersion(crd *apiextv1.CustomResourceDefinition, name string) *apiextv1.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

func (ck *CustomKind) compile(v *apiextv1.CustomResourceDefinitionVersion) error {
	var err error
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		if ck.schema, err = compileSchema(v.Schema.OpenAPIV3Schema); err != nil {
			return err
		}
	}
	for _, c := range v.AdditionalPrinterColumns {
		p, err := ParseJSONPath(c.JSONPath)
		if err != nil {
			return fmt.Errorf("printer column %s: %w", c.Name, err)
		}
		ck.Columns = append(ck.Columns, PrinterColumn{CustomResourceColumnDefinition: c, Path: p})
	}
	for _, f := range v.SelectableFields {
		p, err := ParseJSONPath(f.JSONPath)
		if err != nil {
			return fmt.Errorf("selectable field %s: %w", f.JSONPath, err)
		}
		ck.selectable[f.JSONPath[1:]] = p
	}
	return nil
}

// publishedSchema is the version's schema as OpenAPI publishes it: with
// apiVersion, kind and the shared ObjectMeta definition.
func publishedSchema(v *apiextv1.CustomResourceDefinitionVersion) ([]byte, error) {
	m := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
		if err != nil {
			return nil, err
		}
		m = map[string]any{}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		m["properties"] = props
	}
	props["apiVersion"] = map[string]any{"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values."}
	props["kind"] = map[string]any{"type": "string", "description": "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase."}
	props["metadata"] = map[string]any{"$ref": objectMetaRef, "description": "Standard object's metadata."}
	return json.Marshal(m)
}

// Custom returns the kind's CustomResourceDefinition parts, nil for a kind
// that is not a custom resource.
func (r *Resource) Custom() *CustomKind { return r.custom }
