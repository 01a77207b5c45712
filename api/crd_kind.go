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
	// Source is the definition's uid and generation the kind was made
	// from: a definition whose Source is served needs no new kinds.
	Source string
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
	ck := &CustomKind{CRD: crd.Name, Source: CRDSource(crd), StorageVersion: StorageVersion(crd), selectable: map[string]JSONPath{}}
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

// CRDSource identifies what a definition's kinds are made from.
func CRDSource(crd *apiextv1.CustomResourceDefinition) string {
	return fmt.Sprintf("%s/%d", crd.UID, crd.Generation)
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
// apiVersion, kind and the shared ObjectMeta definition. Only the top
// level is decoded, so that a large schema is not rebuilt as a tree.
func publishedSchema(v *apiextv1.CustomResourceDefinitionVersion) ([]byte, error) {
	top := map[string]json.RawMessage{"type": json.RawMessage(`"object"`),
		"x-kubernetes-preserve-unknown-fields": json.RawMessage(`true`)}
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
		if err != nil {
			return nil, err
		}
		top = nil
		if err := json.Unmarshal(raw, &top); err != nil {
			return nil, err
		}
	}
	props := map[string]json.RawMessage{}
	if p, ok := top["properties"]; ok {
		if err := json.Unmarshal(p, &props); err != nil {
			return nil, err
		}
	}
	props["apiVersion"] = json.RawMessage(typeFieldSchema("APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values."))
	props["kind"] = json.RawMessage(typeFieldSchema("Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase."))
	props["metadata"] = json.RawMessage(`{"$ref":"` + objectMetaRef + `","description":"Standard object's metadata."}`)
	p, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	top["properties"] = p
	return json.Marshal(top)
}

func typeFieldSchema(desc string) string {
	return `{"type":"string","description":"` + desc + `"}`
}

// Custom returns the kind's CustomResourceDefinition parts, nil for a kind
// that is not a custom resource.
func (r *Resource) Custom() *CustomKind { return r.custom }
