package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
)

// defaultOf is a field's (or element's) default, as upstream writes it:
// the "+default=" tag of the field or of its type (a JSON value, or
// ref(Constant)), else the zero value the JSON form always carries (an
// empty object for struct values, "" / 0 / false for basic values without
// omitempty). A tag that contradicts the zero value is an error.
func (g *generator) defaultOf(t reflect.Type, lines []string, pkg *pkgSource, omitEmpty bool) (any, error) {
	tagged, err := g.taggedDefault(t, lines, pkg)
	if err != nil {
		return nil, err
	}
	zero := zeroDefault(t, omitEmpty)
	if tagged == nil {
		return zero, nil
	}
	if zero != nil && !reflect.DeepEqual(tagged, zero) {
		return nil, fmt.Errorf("default %v contradicts the zero value %v", tagged, zero)
	}
	return tagged, nil
}

var refDefault = regexp.MustCompile(`^ref\(([^"]+)\)$`)

func (g *generator) taggedDefault(t reflect.Type, lines []string, pkg *pkgSource) (any, error) {
	value, ok := tag(tags(lines), "default")
	if !ok {
		named := deref(t)
		if named.Name() == "" || named.PkgPath() == "" {
			return nil, nil
		}
		var err error
		if pkg, err = g.src.load(named.PkgPath()); err != nil {
			return nil, err
		}
		ts := pkg.types[named.Name()]
		if ts == nil {
			return nil, nil
		}
		if value, ok = tag(tags(ts.doc), "default"); !ok {
			return nil, nil
		}
	}
	if m := refDefault.FindStringSubmatch(value); m != nil {
		return constValue(pkg, m[1])
	}
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return nil, fmt.Errorf("+default=%s: %w", value, err)
	}
	return v, nil
}

func constValue(pkg *pkgSource, name string) (any, error) {
	for _, consts := range pkg.consts {
		for _, c := range consts {
			if c.name == name && !c.opaque {
				return c.value, nil
			}
		}
	}
	return nil, fmt.Errorf("+default=ref(%s): no such string constant in %s", name, pkg.path)
}

// zeroDefault is the value every object carries for a field of type t
// whatever its client sent (nil when there is none).
func zeroDefault(t reflect.Type, omitEmpty bool) any {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Array, reflect.Interface:
		return nil
	case reflect.Struct:
		if reflect.PointerTo(t).Implements(unmarshalerType) {
			return nil // null is its zero value
		}
		if t.NumField() == 1 && t.Field(0).Anonymous {
			return zeroDefault(t.Field(0).Type, omitEmpty)
		}
		return map[string]any{}
	}
	if omitEmpty {
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return ""
	case reflect.Bool:
		return false
	}
	return 0
}
