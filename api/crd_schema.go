package api

import (
	"encoding/json"
	"fmt"
	"regexp"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"
)

// schemaNode is one node of a custom resource version's structural
// schema, compiled once when the kind is served: patterns compiled,
// enums and defaults decoded.
type schemaNode struct {
	s          *apiextv1.JSONSchemaProps // the scalar constraints
	properties map[string]*schemaNode
	items      *schemaNode
	additional *schemaNode // additionalProperties with a schema
	pattern    *regexp.Regexp
	enum       []any
	def        any
	hasDefault bool
}

// compileSchema compiles s; it fails only on what CRD validation refuses
// (a bad pattern, enum or default).
func compileSchema(s *apiextv1.JSONSchemaProps) (*schemaNode, error) {
	n := &schemaNode{s: s}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", s.Pattern, err)
		}
		n.pattern = re
	}
	for _, e := range s.Enum {
		v, err := decodeJSONValue(e.Raw)
		if err != nil {
			return nil, fmt.Errorf("enum: %w", err)
		}
		n.enum = append(n.enum, v)
	}
	if s.Default != nil {
		v, err := decodeJSONValue(s.Default.Raw)
		if err != nil {
			return nil, fmt.Errorf("default: %w", err)
		}
		n.def, n.hasDefault = v, true
	}
	return n, n.compileChildren(s)
}

func (n *schemaNode) compileChildren(s *apiextv1.JSONSchemaProps) error {
	var err error
	if len(s.Properties) > 0 {
		n.properties = make(map[string]*schemaNode, len(s.Properties))
	}
	for name := range s.Properties {
		child := s.Properties[name]
		if n.properties[name], err = compileSchema(&child); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		if n.items, err = compileSchema(s.Items.Schema); err != nil {
			return fmt.Errorf("items: %w", err)
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if n.additional, err = compileSchema(s.AdditionalProperties.Schema); err != nil {
			return fmt.Errorf("additionalProperties: %w", err)
		}
	}
	return nil
}

// decodeJSONValue decodes JSON as objects are decoded: integers as int64.
func decodeJSONValue(raw []byte) (any, error) {
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// keepsUnknown reports whether unknown fields of an object node stay.
func (n *schemaNode) keepsUnknown() bool {
	return preserves(n.s) || n.additional != nil ||
		(n.s.AdditionalProperties != nil && n.s.AdditionalProperties.Allows && n.s.AdditionalProperties.Schema == nil)
}

// jsonType names a decoded JSON value's type as schemas do.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, int, int32:
		return "integer"
	case float64, json.Number:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}
