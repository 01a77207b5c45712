package api

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// The registry encodes every object it writes, and the shared cache then
// decodes that revision's bytes again. StoredCopy gives the cache the
// registry's object instead, as the decode would have made it: a deep copy
// built the way the JSON decoder builds an object from what the encoder
// wrote. What a round trip changes, the copy changes too: empty slices and
// maps under omitempty become nil, fields the encoder skips are zero, and a
// value with its own JSON methods (times truncated to seconds, quantities
// parsed from their canonical form, raw JSON) goes through its MarshalJSON
// and UnmarshalJSON. What the copy cannot reproduce exactly (interfaces,
// strings that are not UTF-8, text marshalers, arrays) makes it decline:
// the caller then decodes the stored bytes as before.

// copyPlan copies values of one type; nil copy: the type cannot be copied.
type copyPlan struct {
	copy func(dst, src reflect.Value) bool
}

var (
	copyPlans   sync.Map // reflect.Type -> *copyPlan
	copyPlansMu sync.Mutex

	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// StoredCopy is a copy of obj, an object of r's kind that was just
// encoded for the datastore, equal to what decoding those bytes gives
// (DecodeStored) but for the resourceVersion, which the caller sets. ok is
// false when r's objects or this object cannot be copied so: decode then.
func StoredCopy(r *Resource, obj Object) (Object, bool) {
	if r.custom != nil || r.unstructured || r.Storage != nil || r.conv != nil {
		return nil, false
	}
	src := reflect.ValueOf(obj)
	if src.Kind() != reflect.Pointer || src.IsNil() || src.Type() != reflect.TypeOf(r.New()) {
		return nil, false
	}
	if _, converted := toStorageByType[src.Type()]; converted {
		return nil, false
	}
	p := planOf(src.Type().Elem())
	if p.copy == nil {
		return nil, false
	}
	dst := reflect.New(src.Type().Elem())
	if !p.copy(dst.Elem(), src.Elem()) {
		return nil, false
	}
	out := dst.Interface().(Object)
	out.GetObjectKind().SetGroupVersionKind(r.GroupVersionKind())
	return out, true
}

// planOf is t's copy plan, built once.
func planOf(t reflect.Type) *copyPlan {
	if p, ok := copyPlans.Load(t); ok {
		return p.(*copyPlan)
	}
	copyPlansMu.Lock()
	defer copyPlansMu.Unlock()
	return buildPlan(t, map[reflect.Type]bool{})
}

// buildPlan makes and stores t's plan; building lists the types being
// built, whose recursion is not copied (no API type needs it).
func buildPlan(t reflect.Type, building map[reflect.Type]bool) *copyPlan {
	if p, ok := copyPlans.Load(t); ok {
		return p.(*copyPlan)
	}
	if building[t] {
		return &copyPlan{}
	}
	building[t] = true
	p := &copyPlan{copy: makeCopy(t, building)}
	delete(building, t)
	copyPlans.Store(t, p)
	return p
}

// makeCopy is the copier of t's values; nil when there can be none.
func makeCopy(t reflect.Type, building map[reflect.Type]bool) func(dst, src reflect.Value) bool {
	pt := reflect.PointerTo(t)
	if pt.Implements(jsonMarshaler) || pt.Implements(jsonUnmarshaler) {
		if pt.Implements(jsonMarshaler) && pt.Implements(jsonUnmarshaler) {
			return roundTrip
		}
		return nil
	}
	if pt.Implements(textMarshaler) || pt.Implements(textUnmarshaler) {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return copyScalar
	case reflect.Uint8:
		return copyScalar
	case reflect.String:
		return copyString
	case reflect.Pointer:
		return pointerCopy(t, building)
	case reflect.Slice:
		return sliceCopy(t, building)
	case reflect.Map:
		return mapCopy(t, building)
	case reflect.Struct:
		return structCopy(t, building)
	}
	return nil // interfaces, arrays, channels, functions, complex numbers
}

func copyScalar(dst, src reflect.Value) bool { dst.Set(src); return true }

func copyString(dst, src reflect.Value) bool {
	if !utf8.ValidString(src.String()) {
		return false // the encoder would replace the bad bytes
	}
	dst.Set(src)
	return true
}

// roundTrip sets dst to what decoding src's own JSON gives, with that JSON
// compacted and HTML-escaped as encoding/json writes a marshaler's output.
func roundTrip(dst, src reflect.Value) bool {
	in := reflect.New(src.Type())
	in.Elem().Set(src)
	raw, err := in.Interface().(json.Marshaler).MarshalJSON()
	if err != nil {
		return false
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return false
	}
	if bytes.ContainsAny(buf.Bytes(), "<>&\u2028\u2029") {
		var esc bytes.Buffer
		json.HTMLEscape(&esc, buf.Bytes())
		buf = esc
	}
	return dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(buf.Bytes()) == nil
}

// encodesNull says whether v (of a type with its own JSON methods) is
// written as null, which leaves a pointer to it nil once decoded.
func encodesNull(v reflect.Value) bool {
	m, ok := v.Addr().Interface().(json.Marshaler)
	if !ok {
		return false
	}
	raw, err := m.MarshalJSON()
	return err == nil && string(bytes.TrimSpace(raw)) == "null"
}

// jsonTag is a struct field's JSON name and whether it has omitempty;
// skip when the encoder never writes it.
func jsonTag(f reflect.StructField) (name string, omitEmpty, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		omitEmpty = omitEmpty || o == "omitempty"
	}
	return name, omitEmpty, false
}
