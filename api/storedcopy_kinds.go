package api

import (
	"reflect"
	"strings"
	"unicode/utf8"
)

// The copiers of StoredCopy for pointers, slices, maps and structs. Each
// builds its value new, as the decoder does; false means the value cannot
// be reproduced exactly and the caller must decode instead.

// pointerCopy: nil stays nil; a value written as null (a zero time) becomes
// nil, as the decoder leaves a pointer it reads null into.
func pointerCopy(t reflect.Type, building map[reflect.Type]bool) func(dst, src reflect.Value) bool {
	elem := buildPlan(t.Elem(), building)
	if elem.copy == nil {
		return nil
	}
	own := reflect.PointerTo(t.Elem()).Implements(jsonMarshaler)
	return func(dst, src reflect.Value) bool {
		if src.IsNil() {
			return true
		}
		if own && encodesNull(src.Elem()) {
			return true
		}
		p := reflect.New(t.Elem())
		if !elem.copy(p.Elem(), src.Elem()) {
			return false
		}
		dst.Set(p)
		return true
	}
}

// sliceCopy: nil stays nil, an empty slice stays empty (written [] or "").
func sliceCopy(t reflect.Type, building map[reflect.Type]bool) func(dst, src reflect.Value) bool {
	if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(jsonMarshaler) {
		return func(dst, src reflect.Value) bool { // base64, as []byte
			if !src.IsNil() {
				dst.Set(reflect.MakeSlice(t, src.Len(), src.Len()))
				reflect.Copy(dst, src)
			}
			return true
		}
	}
	elem := buildPlan(t.Elem(), building)
	if elem.copy == nil {
		return nil
	}
	return func(dst, src reflect.Value) bool {
		if src.IsNil() {
			return true
		}
		n := src.Len()
		out := reflect.MakeSlice(t, n, n)
		for i := range n {
			if !elem.copy(out.Index(i), src.Index(i)) {
				return false
			}
		}
		dst.Set(out)
		return true
	}
}

// mapCopy copies maps with string keys; map values are not addressable,
// so a value type whose JSON methods need a pointer is declined.
func mapCopy(t reflect.Type, building map[reflect.Type]bool) func(dst, src reflect.Value) bool {
	kt, et := t.Key(), t.Elem()
	if kt.Kind() != reflect.String || reflect.PointerTo(kt).Implements(textUnmarshaler) ||
		(reflect.PointerTo(et).Implements(jsonMarshaler) && !et.Implements(jsonMarshaler)) {
		return nil
	}
	elem := buildPlan(et, building)
	if elem.copy == nil {
		return nil
	}
	return func(dst, src reflect.Value) bool {
		if src.IsNil() {
			return true
		}
		out := reflect.MakeMapWithSize(t, src.Len())
		for it := src.MapRange(); it.Next(); {
			if !utf8.ValidString(it.Key().String()) {
				return false
			}
			v := reflect.New(et).Elem()
			if !elem.copy(v, it.Value()) {
				return false
			}
			out.SetMapIndex(it.Key(), v)
		}
		dst.Set(out)
		return true
	}
}

// fieldCopy is one struct field's copier.
type fieldCopy struct {
	index     int
	omitEmpty bool
	copy      func(dst, src reflect.Value) bool
}

// structCopy copies the fields the encoder writes; the rest stay zero, as
// the decoder leaves them.
func structCopy(t reflect.Type, building map[reflect.Type]bool) func(dst, src reflect.Value) bool {
	var fields []fieldCopy
	for i := range t.NumField() {
		f := t.Field(i)
		name, omitEmpty, skip := jsonTag(f)
		switch {
		case skip:
			continue
		case !f.IsExported() && !f.Anonymous:
			continue
		case !f.IsExported(), f.Anonymous && name == "" && f.Type.Kind() == reflect.Pointer,
			strings.Contains(f.Tag.Get("json"), "omitzero"):
			return nil
		}
		p := buildPlan(f.Type, building)
		if p.copy == nil {
			return nil
		}
		fields = append(fields, fieldCopy{index: i, omitEmpty: omitEmpty, copy: p.copy})
	}
	return func(dst, src reflect.Value) bool {
		for _, f := range fields {
			s := src.Field(f.index)
			if f.omitEmpty && isEmpty(s) {
				continue
			}
			if !f.copy(dst.Field(f.index), s) {
				return false
			}
		}
		return true
	}
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
