package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// V2RefPrefix starts every reference between OpenAPI v2 definitions.
const V2RefPrefix = "#/definitions/"

// v3Only are the schema fields OpenAPI v2 does not have; a v2 document
// leaves them out (upstream does the same for custom resources' schemas).
var v3Only = []string{"oneOf", "anyOf", "not", "nullable", "writeOnly", "deprecated"}

// V2 rewrites v3 component schemas as OpenAPI v2 definitions: a reference
// wrapped in a one-element allOf (v3's way to give a reference a
// description or default) becomes a plain reference with those siblings,
// references point into #/definitions/, v3-only fields are dropped, and
// the generated definitions whose v2 form differs (IntOrString, Quantity:
// a oneOf in v3, a string in v2) take their v2 form.
func (d *Definitions) V2(schemas map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(schemas))
	for name, def := range schemas {
		if v2, ok := d.v2[name]; ok {
			def = v2
		}
		var s any
		if err := json.Unmarshal(def, &s); err != nil {
			return nil, fmt.Errorf("openapi v2 %s: %w", name, err)
		}
		b, err := json.Marshal(toV2(s))
		if err != nil {
			return nil, fmt.Errorf("openapi v2 %s: %w", name, err)
		}
		out[name] = b
	}
	return out, nil
}

// toV2 rewrites one decoded schema in place (see V2) and returns it.
func toV2(v any) any {
	s, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		if only, ok := all[0].(map[string]any); ok && len(only) == 1 && only["$ref"] != nil {
			delete(s, "allOf")
			s["$ref"] = only["$ref"]
		}
	}
	for _, k := range v3Only {
		delete(s, k)
	}
	if ref, ok := s["$ref"].(string); ok {
		s["$ref"] = V2RefPrefix + strings.TrimPrefix(ref, RefPrefix)
	}
	for _, k := range []string{"properties", "patternProperties"} {
		if props, ok := s[k].(map[string]any); ok {
			for name, p := range props {
				props[name] = toV2(p)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "allOf"} {
		switch sub := s[k].(type) {
		case map[string]any:
			s[k] = toV2(sub)
		case []any:
			for i := range sub {
				sub[i] = toV2(sub[i])
			}
		}
	}
	return s
}
