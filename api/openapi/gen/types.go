package main

import (
	"fmt"
	"reflect"
)

// scalar is the OpenAPI type and format of a Go basic kind, as upstream
// writes them.
type scalar struct{ typ, format string }

var scalars = map[reflect.Kind]scalar{
	reflect.Bool:    {"boolean", ""},
	reflect.String:  {"string", ""},
	reflect.Int:     {"integer", "int32"},
	reflect.Int8:    {"integer", "byte"},
	reflect.Int16:   {"integer", "int32"},
	reflect.Int32:   {"integer", "int32"},
	reflect.Int64:   {"integer", "int64"},
	reflect.Uint:    {"integer", "int32"},
	reflect.Uint8:   {"integer", "byte"},
	reflect.Uint16:  {"integer", "int32"},
	reflect.Uint32:  {"integer", "int64"},
	reflect.Uint64:  {"integer", "int64"},
	reflect.Float32: {"number", "float"},
	reflect.Float64: {"number", "double"},
}

// typeSchema is the schema of a value of type t: a reference for types
// with a definition, an inline schema otherwise.
func (g *generator) typeSchema(t reflect.Type) (map[string]any, error) {
	t = deref(t)
	if hasDefinition(t) {
		return g.ref(t)
	}
	if t == timeType {
		return map[string]any{"type": "string", "format": "date-time"}, nil
	}
	if sc, ok := scalars[t.Kind()]; ok {
		s := map[string]any{"type": sc.typ}
		if sc.format != "" {
			s["format"] = sc.format
		}
		enum, err := g.enumOf(t)
		if len(enum) > 0 {
			s["enum"] = enumValues(enum)
		}
		return s, err
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "format": "byte"}, nil
		}
		items, err := g.elemSchema(t.Elem())
		return map[string]any{"type": "array", "items": items}, err
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map keys of %s are not strings", t)
		}
		values, err := g.elemSchema(t.Elem())
		return map[string]any{"type": "object", "additionalProperties": values}, err
	case reflect.Interface:
		return map[string]any{"type": "object"}, nil
	}
	return nil, fmt.Errorf("no OpenAPI schema for %s (kind %s)", t, t.Kind())
}

// elemSchema is the schema of a list item or map value: its type's, with
// the default upstream gives elements.
func (g *generator) elemSchema(t reflect.Type) (map[string]any, error) {
	s, err := g.typeSchema(t)
	if err != nil {
		return nil, err
	}
	def, err := g.defaultOf(t, nil, nil, false)
	if err != nil {
		return nil, err
	}
	if def != nil {
		s["default"] = def
	}
	return wrapRef(s), nil
}

// enumOf is the values of t when t (or what it points to) is a string
// type marked "+enum", with the doc of their constants.
func (g *generator) enumOf(t reflect.Type) ([]constSource, error) {
	t = deref(t)
	if t.Kind() != reflect.String || t.Name() == "" || t.PkgPath() == "" {
		return nil, nil
	}
	pkg, err := g.src.load(t.PkgPath())
	if err != nil {
		return nil, err
	}
	ts := pkg.types[t.Name()]
	if ts == nil {
		return nil, nil
	}
	if _, ok := tags(ts.doc)["enum"]; !ok {
		return nil, nil
	}
	return distinctValues(t, pkg.consts[t.Name()])
}

// distinctValues keeps one constant per value, the one with the longer
// doc comment; a constant whose value the source does not spell out is
// an error.
func distinctValues(t reflect.Type, consts []constSource) ([]constSource, error) {
	var out []constSource
	at := map[string]int{}
	for _, c := range consts {
		if c.opaque {
			return nil, fmt.Errorf("enum %s: constant %s is not a string literal", t, c.name)
		}
		i, seen := at[c.value]
		switch {
		case !seen:
			at[c.value] = len(out)
			out = append(out, c)
		case len(docText(c)) > len(docText(out[i])):
			out[i] = c
		}
	}
	return out, nil
}

func docText(c constSource) string {
	s := ""
	for _, l := range c.doc {
		s += l + " "
	}
	return s
}
