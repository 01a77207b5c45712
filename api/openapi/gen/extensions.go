package main

import (
	"fmt"
	"os"
	"reflect"
)

// listExtensions map the list and map markers of field comments onto the
// OpenAPI extensions server-side apply and kubectl read, with the values
// each may take.
var listExtensions = []struct {
	tag, ext string
	kinds    []reflect.Kind
	values   []string // nil: any
}{
	{"listType", "x-kubernetes-list-type", []reflect.Kind{reflect.Slice, reflect.Array}, []string{"atomic", "set", "map"}},
	{"mapType", "x-kubernetes-map-type", []reflect.Kind{reflect.Map}, []string{"atomic", "granular"}},
	{"structType", "x-kubernetes-map-type", []reflect.Kind{reflect.Struct}, []string{"atomic", "granular"}},
}

// memberExtensions adds a field's extensions: list type and map keys,
// map and struct type from its comment markers, patch strategy and merge
// key from its struct tags (which must agree with any comment markers).
func memberExtensions(p map[string]any, f reflect.StructField, t map[string][]string) error {
	kind := deref(f.Type).Kind()
	for _, le := range listExtensions {
		v, ok := tag(t, le.tag)
		if !ok {
			continue
		}
		if !valueIn(v, le.values) {
			return fmt.Errorf("+%s=%s: want one of %v", le.tag, v, le.values)
		}
		if !kindIn(kind, le.kinds) { // upstream writes it all the same
			fmt.Fprintf(os.Stderr, "openapi gen: warning: field %s: +%s on a %s\n", f.Name, le.tag, kind)
		}
		p[le.ext] = v
	}
	if keys, ok := t["listMapKey"]; ok {
		if v, _ := tag(t, "listType"); v != "map" {
			fmt.Fprintf(os.Stderr, "openapi gen: warning: field %s: +listMapKey without +listType=map\n", f.Name)
		}
		p["x-kubernetes-list-map-keys"] = keys
	}
	for _, pe := range []struct{ tag, ext string }{
		{"patchStrategy", "x-kubernetes-patch-strategy"},
		{"patchMergeKey", "x-kubernetes-patch-merge-key"},
	} {
		v := f.Tag.Get(pe.tag)
		if c, ok := tag(t, pe.tag); ok && c != v {
			return fmt.Errorf("+%s=%s disagrees with the struct tag %q", pe.tag, c, v)
		}
		if v != "" {
			p[pe.ext] = v
		}
	}
	return nil
}

// typeExtensions adds a struct type's own extensions ("+structType").
func typeExtensions(def map[string]any, t map[string][]string) error {
	v, ok := tag(t, "structType")
	if !ok {
		return nil
	}
	if !valueIn(v, []string{"atomic", "granular"}) {
		return fmt.Errorf("+structType=%s: want atomic or granular", v)
	}
	def["x-kubernetes-map-type"] = v
	return nil
}

func kindIn(k reflect.Kind, kinds []reflect.Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

func valueIn(v string, values []string) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}
