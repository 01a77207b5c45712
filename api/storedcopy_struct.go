package api

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// fieldFix is what a struct field needs after a deep copy.
type fieldFix struct {
	index     int
	omitEmpty bool
	sized     bool // a slice or map: empty under omitempty becomes nil
	zero      bool // the encoder skips it: the decode leaves it zero
	fix       fixer
}

// structFixer fixes the fields that need it; nil when none does.
func structFixer(t reflect.Type, building map[reflect.Type]bool) (fixer, bool) {
	var fields []fieldFix
	for i := range t.NumField() {
		f := t.Field(i)
		name, omitEmpty, skip := jsonTag(f)
		switch {
		case skip, !f.IsExported() && !f.Anonymous:
			fields = append(fields, fieldFix{index: i, zero: true})
			continue
		case !f.IsExported(), f.Anonymous && name == "" && f.Type.Kind() == reflect.Pointer,
			strings.Contains(f.Tag.Get("json"), "omitzero"):
			return nil, false
		}
		p := buildNorm(f.Type, building)
		if !p.ok {
			return nil, false
		}
		k := f.Type.Kind()
		sized := omitEmpty && (k == reflect.Slice || k == reflect.Map)
		if p.fix != nil || sized {
			fields = append(fields, fieldFix{index: i, omitEmpty: omitEmpty, sized: sized, fix: p.fix})
		}
	}
	if len(fields) == 0 {
		return nil, true
	}
	structFixes.Store(t, fields)
	return func(v reflect.Value) bool { return fixFields(v, fields, nil) }, true
}

// structFixes are the fields of each struct type that need fixing:
// reflect.Type -> []fieldFix (absent: none).
var structFixes sync.Map

// fixFields fixes v's fields but those whose index skip lists.
func fixFields(v reflect.Value, fields []fieldFix, skip []int) bool {
	for _, f := range fields {
		if skip != nil && slices.Contains(skip, f.index) {
			continue
		}
		fv := v.Field(f.index)
		switch {
		case f.zero:
			if !fv.IsZero() {
				fv.SetZero()
			}
			continue
		case f.sized && fv.Len() == 0:
			if !fv.IsNil() {
				fv.SetZero()
			}
			continue
		case f.omitEmpty && isEmpty(fv), f.fix == nil:
			continue
		}
		if !f.fix(fv) {
			return false
		}
	}
	return true
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
