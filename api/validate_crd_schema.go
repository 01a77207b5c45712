package api

import (
	"regexp"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var schemaTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// validateStructural checks the parts of upstream's structural-schema
// rules a validator depends on: every node has a known type (or is
// int-or-string or preserves unknown fields), arrays have items, objects
// have properties or additionalProperties but not both, patterns compile,
// and the root is an object whose metadata names only name and
// generateName.
func validateStructural(s *apiextv1.JSONSchemaProps, p *field.Path, root bool) field.ErrorList {
	var errs field.ErrorList
	switch {
	case s.Type == "" && !s.XIntOrString && !preserves(s):
		errs = append(errs, field.Required(p.Child("type"), "must not be empty for specified object fields"))
	case s.Type != "" && !schemaListHas(schemaTypes, s.Type):
		errs = append(errs, field.NotSupported(p.Child("type"), s.Type, schemaTypes))
	case root && s.Type != "object":
		errs = append(errs, field.Invalid(p.Child("type"), s.Type, "must be object at the root"))
	}
	if s.Type == "array" && (s.Items == nil || s.Items.Schema == nil) {
		errs = append(errs, field.Required(p.Child("items"), "must be specified"))
	}
	if len(s.Properties) > 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		errs = append(errs, field.Forbidden(p.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, field.Invalid(p.Child("pattern"), s.Pattern, "must be a valid regular expression, but isn't: "+err.Error()))
		}
	}
	if s.Default != nil {
		errs = append(errs, validateDefault(s, p.Child("default"))...)
	}
	if s.Ref != nil {
		errs = append(errs, field.Forbidden(p.Child("$ref"), "$ref is not supported"))
	}
	if root {
		errs = append(errs, validateRootMetadata(s, p)...)
	}
	return append(errs, validateChildren(s, p)...)
}

// validateDefault: a default must itself be valid at its place.
func validateDefault(s *apiextv1.JSONSchemaProps, p *field.Path) field.ErrorList {
	n, err := compileSchema(s)
	if err != nil {
		return field.ErrorList{field.Invalid(p, string(s.Default.Raw), err.Error())}
	}
	if errs := n.validate(n.def, p); len(errs) > 0 {
		return field.ErrorList{field.Invalid(p, string(s.Default.Raw), errs.ToAggregate().Error())}
	}
	return nil
}

func validateChildren(s *apiextv1.JSONSchemaProps, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, child := range s.Properties {
		errs = append(errs, validateStructural(&child, p.Child("properties").Key(name), false)...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, validateStructural(s.Items.Schema, p.Child("items"), false)...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		errs = append(errs, validateStructural(s.AdditionalProperties.Schema, p.Child("additionalProperties"), false)...)
	}
	return errs
}

func validateRootMetadata(s *apiextv1.JSONSchemaProps, p *field.Path) field.ErrorList {
	md, ok := s.Properties["metadata"]
	if !ok {
		return nil
	}
	for name := range md.Properties {
		if name != "name" && name != "generateName" {
			return field.ErrorList{field.Forbidden(p.Child("properties").Key("metadata"),
				"must not specify anything other than name and generateName, but metadata is implicitly specified")}
		}
	}
	return nil
}

func preserves(s *apiextv1.JSONSchemaProps) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

func schemaListHas(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var columnTypes = []string{"boolean", "date", "integer", "number", "string"}

func validateCRDColumns(cols []apiextv1.CustomResourceColumnDefinition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cols {
		cp := p.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		}
		if !schemaListHas(columnTypes, c.Type) {
			errs = append(errs, field.NotSupported(cp.Child("type"), c.Type, columnTypes))
		}
		if c.JSONPath == "" {
			errs = append(errs, field.Required(cp.Child("jsonPath"), ""))
		} else if _, err := ParseJSONPath(c.JSONPath); err != nil {
			errs = append(errs, field.Invalid(cp.Child("jsonPath"), c.JSONPath, err.Error()))
		}
	}
	return errs
}

func validateScalePaths(sc *apiextv1.CustomResourceSubresourceScale, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !strings.HasPrefix(sc.SpecReplicasPath, ".spec.") {
		errs = append(errs, field.Invalid(p.Child("specReplicasPath"), sc.SpecReplicasPath, "should be a json path under .spec"))
	}
	if !strings.HasPrefix(sc.StatusReplicasPath, ".status.") {
		errs = append(errs, field.Invalid(p.Child("statusReplicasPath"), sc.StatusReplicasPath, "should be a json path under .status"))
	}
	if l := sc.LabelSelectorPath; l != nil && !strings.HasPrefix(*l, ".spec.") && !strings.HasPrefix(*l, ".status.") {
		errs = append(errs, field.Invalid(p.Child("labelSelectorPath"), *l, "should be a json path under either .spec or .status"))
	}
	return errs
}

// validateCRDUpdate: group and scope never change.
func validateCRDUpdate(obj, old Object) field.ErrorList {
	crd, was := obj.(*apiextv1.CustomResourceDefinition), old.(*apiextv1.CustomResourceDefinition)
	p := field.NewPath("spec")
	errs := immutable(crd.Spec.Group, was.Spec.Group, p.Child("group"))
	return append(errs, immutable(crd.Spec.Scope, was.Spec.Scope, p.Child("scope"))...)
}
