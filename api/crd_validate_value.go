package api

import (
	"fmt"
	"reflect"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validate checks v against the node with upstream's messages ("spec.size
// in body should be greater than or equal to 1").
func (n *schemaNode) validate(v any, p *field.Path) field.ErrorList {
	if v == nil {
		if n.s.Nullable || n.s.Type == "" {
			return nil
		}
		return field.ErrorList{field.Invalid(p, "null", fmt.Sprintf("%s in body must be of type %s: \"null\"", p, n.s.Type))}
	}
	if errs := n.checkType(v, p); len(errs) > 0 {
		return errs
	}
	errs := n.checkEnum(v, p)
	switch x := v.(type) {
	case string:
		errs = append(errs, n.checkString(x, p)...)
	case int64:
		errs = append(errs, n.checkNumber(float64(x), v, p)...)
	case float64:
		errs = append(errs, n.checkNumber(x, v, p)...)
	case []any:
		errs = append(errs, n.checkArray(x, p)...)
	case map[string]any:
		errs = append(errs, n.checkObject(x, p)...)
	}
	return errs
}

func (n *schemaNode) checkType(v any, p *field.Path) field.ErrorList {
	got := jsonType(v)
	want := n.s.Type
	switch {
	case n.s.XIntOrString:
		if got == "integer" || got == "string" {
			return nil
		}
		want = "integer,string"
	case want == "", want == got, want == "number" && got == "integer":
		return nil
	}
	return field.ErrorList{field.Invalid(p, got, fmt.Sprintf("%s in body must be of type %s: %q", p, want, got))}
}

func (n *schemaNode) checkEnum(v any, p *field.Path) field.ErrorList {
	if len(n.enum) == 0 {
		return nil
	}
	supported := make([]string, len(n.enum))
	for i, e := range n.enum {
		if reflect.DeepEqual(e, v) {
			return nil
		}
		supported[i] = fmt.Sprint(e)
	}
	return field.ErrorList{field.NotSupported(p, v, supported)}
}

func (n *schemaNode) checkString(x string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	l := int64(utf8.RuneCountInString(x))
	if s := n.s; s.MaxLength != nil && l > *s.MaxLength {
		errs = append(errs, field.TooLong(p, x, int(*s.MaxLength)))
	}
	if s := n.s; s.MinLength != nil && l < *s.MinLength {
		errs = append(errs, field.Invalid(p, x, fmt.Sprintf("%s in body should be at least %d chars long", p, *s.MinLength)))
	}
	if n.pattern != nil && !n.pattern.MatchString(x) {
		errs = append(errs, field.Invalid(p, x, fmt.Sprintf("%s in body should match '%s'", p, n.s.Pattern)))
	}
	return errs
}

func (n *schemaNode) checkNumber(f float64, v any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	s := n.s
	if s.Minimum != nil && (f < *s.Minimum || s.ExclusiveMinimum && f == *s.Minimum) {
		rel := "greater than or equal to"
		if s.ExclusiveMinimum {
			rel = "greater than"
		}
		errs = append(errs, field.Invalid(p, v, fmt.Sprintf("%s in body should be %s %v", p, rel, *s.Minimum)))
	}
	if s.Maximum != nil && (f > *s.Maximum || s.ExclusiveMaximum && f == *s.Maximum) {
		rel := "less than or equal to"
		if s.ExclusiveMaximum {
			rel = "less than"
		}
		errs = append(errs, field.Invalid(p, v, fmt.Sprintf("%s in body should be %s %v", p, rel, *s.Maximum)))
	}
	if s.MultipleOf != nil && *s.MultipleOf != 0 && f/(*s.MultipleOf) != float64(int64(f/(*s.MultipleOf))) {
		errs = append(errs, field.Invalid(p, v, fmt.Sprintf("%s in body should be a multiple of %v", p, *s.MultipleOf)))
	}
	return errs
}

func (n *schemaNode) checkArray(list []any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s := n.s; s.MaxItems != nil && int64(len(list)) > *s.MaxItems {
		errs = append(errs, field.TooMany(p, len(list), int(*s.MaxItems)))
	}
	if s := n.s; s.MinItems != nil && int64(len(list)) < *s.MinItems {
		errs = append(errs, field.Invalid(p, len(list), fmt.Sprintf("%s in body should have at least %d items", p, *s.MinItems)))
	}
	errs = append(errs, n.checkListType(list, p)...)
	if n.items != nil {
		for i, e := range list {
			errs = append(errs, n.items.validate(e, p.Index(i))...)
		}
	}
	return errs
}

// checkListType refuses duplicates in sets and duplicate keys in maps
// (x-kubernetes-list-type), which server-side apply relies on.
func (n *schemaNode) checkListType(list []any, p *field.Path) field.ErrorList {
	lt := n.s.XListType
	if lt == nil || (*lt != "set" && *lt != "map") {
		return nil
	}
	var errs field.ErrorList
	seen := make([]any, 0, len(list))
	for i, e := range list {
		key := e
		if *lt == "map" {
			key = mapKeyOf(e, n.s.XListMapKeys)
		}
		for _, s := range seen {
			if reflect.DeepEqual(s, key) {
				errs = append(errs, field.Duplicate(p.Index(i), e))
				break
			}
		}
		seen = append(seen, key)
	}
	return errs
}

func mapKeyOf(e any, keys []string) any {
	m, _ := e.(map[string]any)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

func (n *schemaNode) checkObject(m map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, req := range n.s.Required {
		if _, ok := m[req]; !ok {
			errs = append(errs, field.Required(p.Child(req), ""))
		}
	}
	if n.s.XEmbeddedResource {
		errs = append(errs, checkEmbedded(m, p)...)
	}
	for k, v := range m {
		if child, ok := n.properties[k]; ok {
			errs = append(errs, child.validate(v, p.Child(k))...)
		} else if n.additional != nil {
			errs = append(errs, n.additional.validate(v, p.Key(k))...)
		}
	}
	return errs
}

// checkEmbedded: an embedded resource names its apiVersion and kind.
func checkEmbedded(m map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range []string{"apiVersion", "kind"} {
		if s, _ := m[k].(string); s == "" {
			errs = append(errs, field.Required(p.Child(k), "must not be empty"))
		}
	}
	return errs
}
