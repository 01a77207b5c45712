package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/resource"
)

// The guards below find quantities that break the limits in quantity.go
// inside a request body before the typed decoder parses them. They run only
// when a cheap scan of the body shows something that could be such a
// quantity: a long run of digits, an exponent of three or more digits, or a
// JSON \u escape (which could spell either).
var quantityType = reflect.TypeOf(resource.Quantity{})

// guardJSONQuantities checks every quantity-typed field of a JSON body for
// type t. A body that is not valid JSON passes: the typed decoder rejects it
// before parsing any field.
func guardJSONQuantities(t reflect.Type, data []byte) error {
	if !typeHoldsQuantity(t) || !suspect(data, true) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return walkQuantities(t, v, "", checkQuantityValue)
}

// quantityCheck judges the JSON value v found at path in a quantity field.
type quantityCheck func(v any, path string) error

func walkQuantities(t reflect.Type, v any, path string, check quantityCheck) error {
	if v == nil {
		return nil
	}
	if t == quantityType {
		return check(v, path)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return walkQuantities(t.Elem(), v, path, check)
	case reflect.Struct:
		m, _ := v.(map[string]any)
		for name, ft := range jsonFields(t) {
			if err := walkQuantities(ft, m[name], path+"."+name, check); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, _ := v.(map[string]any)
		for k, e := range m {
			if err := walkQuantities(t.Elem(), e, path+"."+k, check); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		list, _ := v.([]any)
		for i, e := range list {
			if err := walkQuantities(t.Elem(), e, fmt.Sprintf("%s[%d]", path, i), check); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkQuantityValue checks a JSON string or number in a quantity field.
func checkQuantityValue(v any, path string) error {
	var s string
	switch q := v.(type) {
	case string:
		s = q
	case json.Number:
		s = q.String()
	default:
		return nil
	}
	if err := checkQuantityText(s); err != nil {
		return fmt.Errorf("quantity %s %w", strings.TrimPrefix(path, "."), err)
	}
	return nil
}

// locateBadQuantity names the field of the first quantity in data that does
// not parse, so a decode error can say where it is; nil when none is found.
func locateBadQuantity(t reflect.Type, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return walkQuantities(t, v, "", func(v any, path string) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		if _, err := resource.ParseQuantity(s); err != nil {
			return fmt.Errorf("%s: invalid value %q: %w", strings.TrimPrefix(path, "."), s, err)
		}
		return nil
	})
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields maps the JSON names of a struct's fields (inline and embedded
// structs flattened) to their types, keeping only fields that can hold a
// quantity.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() || !holdsQuantity(f.Type, map[reflect.Type]bool{}) {
			continue
		}
		if (f.Anonymous && name == "") || strings.Contains(opts, "inline") {
			for n, ft := range jsonFields(f.Type) {
				out[n] = ft
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	fieldCache.Store(t, out)
	return out
}

var holdsCache sync.Map // reflect.Type -> bool

// typeHoldsQuantity is holdsQuantity, remembered per type.
func typeHoldsQuantity(t reflect.Type) bool {
	if v, ok := holdsCache.Load(t); ok {
		return v.(bool)
	}
	h := holdsQuantity(t, map[reflect.Type]bool{})
	holdsCache.Store(t, h)
	return h
}

// holdsQuantity reports whether a value of type t can contain a quantity.
func holdsQuantity(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == quantityType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return holdsQuantity(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() && holdsQuantity(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
