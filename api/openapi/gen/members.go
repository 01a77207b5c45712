package main

import (
	"fmt"
	"reflect"
	"strings"
)

// jsonTag splits a field's json tag into its name and options.
func jsonTag(f reflect.StructField) (name string, opts []string) {
	parts := strings.Split(f.Tag.Get("json"), ",")
	return parts[0], parts[1:]
}

func hasOpt(opts []string, o string) bool {
	for _, x := range opts {
		if x == o {
			return true
		}
	}
	return false
}

// members adds the JSON fields of struct t to props, and the names of the
// required ones to required, in field order. Embedded ",inline" structs
// contribute their own fields.
func (g *generator) members(t reflect.Type, props map[string]any, required *[]string) error {
	pkg, err := g.src.load(t.PkgPath())
	if err != nil {
		return err
	}
	ts := pkg.types[t.Name()]
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts := jsonTag(f)
		lines := ts.fields[f.Name]
		if !f.IsExported() || name == "-" || hasTagValue(lines, "k8s:openapi-gen", "false") {
			continue
		}
		if f.Anonymous && name == "" {
			if !hasOpt(opts, "inline") {
				return fmt.Errorf("embedded field %s has neither a JSON name nor \",inline\"", f.Name)
			}
			if err := g.members(deref(f.Type), props, required); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		req, err := isRequired(lines, opts)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		if req {
			*required = append(*required, name)
		}
		if props[name], err = g.property(f, lines, opts, pkg); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	return nil
}

func hasTagValue(lines []string, name, value string) bool {
	v, ok := tag(tags(lines), name)
	return ok && v == value
}

// isRequired follows upstream: "+required" or "+optional" decide (both
// is an error); without either, a field is required unless omitempty.
func isRequired(lines []string, opts []string) (bool, error) {
	t := tags(lines)
	_, optional := t["optional"]
	_, required := t["required"]
	switch {
	case optional && required:
		return false, fmt.Errorf("both +optional and +required")
	case required, optional:
		return required, nil
	}
	return !hasOpt(opts, "omitempty"), nil
}

// property is the schema of one field: its type's schema with the
// field's description, default, enum values and list, map and patch
// extensions.
func (g *generator) property(f reflect.StructField, lines, opts []string, pkg *pkgSource) (map[string]any, error) {
	enum, err := g.enumOf(f.Type)
	if err != nil {
		return nil, err
	}
	p := map[string]any{"type": "string"}
	if !hasOpt(opts, "string") {
		if p, err = g.typeSchema(f.Type); err != nil {
			return nil, err
		}
	}
	setDescription(p, append(append([]string(nil), lines...), enumLines(enum)...))
	if hasOpt(opts, "string") {
		return p, nil
	}
	def, err := g.defaultOf(f.Type, lines, pkg, hasOpt(opts, "omitempty"))
	if err != nil {
		return nil, err
	}
	if def != nil {
		p["default"] = def
	}
	if err := memberExtensions(p, f, tags(lines)); err != nil {
		return nil, err
	}
	return wrapRef(p), nil
}

// wrapRef puts a reference that has sibling fields in an allOf, as
// upstream's v3 documents do (a $ref's siblings are ignored in v3).
func wrapRef(s map[string]any) map[string]any {
	ref, ok := s["$ref"]
	if !ok || len(s) == 1 {
		return s
	}
	delete(s, "$ref")
	s["allOf"] = []any{map[string]any{"$ref": ref}}
	return s
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
