package api

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// The registry encodes every object it writes, and the shared cache then
// decodes that revision's bytes again. StoredCopy gives the cache the
// registry's object instead, as the decode would have made it: a deep copy
// (the generated DeepCopy) then changed where a JSON round trip changes a
// value: empty slices and maps under omitempty become nil, fields the
// encoder skips become zero, times lose what RFC 3339 does not keep, a
// pointer to a value written as null (a zero time) becomes nil, and other
// values with their own JSON methods (Quantity's cached form, IntOrString,
// FieldsV1) go through their MarshalJSON and UnmarshalJSON. What it cannot
// reproduce exactly (interfaces, strings that are not UTF-8, text
// marshalers, arrays, unexported fields) makes it decline: the caller then
// decodes the stored bytes as before.

// fixer brings one addressable value, owned by the copy, to what a round
// trip gives; false: it cannot.
type fixer func(v reflect.Value) bool

// normPlan is a type's fixer: none (nil fix, ok) when a round trip keeps
// every value of the type as it is; not ok when it cannot be fixed.
type normPlan struct {
	fix fixer
	ok  bool
}

var (
	normPlans   sync.Map // reflect.Type -> *normPlan
	normPlansMu sync.Mutex

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
	p := copyPlan(r, obj)
	if p == nil {
		return nil, false
	}
	return fixedCopy(r, p, obj.DeepCopyObject().(Object))
}

// copyPlan is the plan of obj's type when StoredCopy can copy obj for r;
// nil when it cannot.
func copyPlan(r *Resource, obj Object) *normPlan {
	if r.custom != nil || r.unstructured || r.Storage != nil || r.conv != nil {
		return nil
	}
	t := reflect.TypeOf(obj)
	if t != objectType(r) || t.Kind() != reflect.Pointer || reflect.ValueOf(obj).IsNil() {
		return nil
	}
	if _, converted := toStorageByType[t]; converted {
		return nil
	}
	if p := normPlanOf(t.Elem()); p.ok {
		return p
	}
	return nil
}

// objectTypes caches each resource's object type: *Resource -> reflect.Type.
var objectTypes sync.Map

// objectType is the Go type of r's objects, found once, not by making an
// object per copy.
func objectType(r *Resource) reflect.Type {
	if t, ok := objectTypes.Load(r); ok {
		return t.(reflect.Type)
	}
	t := reflect.TypeOf(r.New())
	objectTypes.Store(r, t)
	return t
}

// fixedCopy brings out, a deep copy, to what a round trip gives.
func fixedCopy(r *Resource, p *normPlan, out Object) (Object, bool) {
	if p.fix != nil && !p.fix(reflect.ValueOf(out).Elem()) {
		return nil, false
	}
	out.GetObjectKind().SetGroupVersionKind(r.GroupVersionKind())
	return out, true
}

// normPlanOf is t's plan, built once.
func normPlanOf(t reflect.Type) *normPlan {
	if p, ok := normPlans.Load(t); ok {
		return p.(*normPlan)
	}
	normPlansMu.Lock()
	defer normPlansMu.Unlock()
	return buildNorm(t, map[reflect.Type]bool{})
}

// buildNorm makes and stores t's plan; building lists the types being
// built, whose recursion is declined (no API type needs it).
func buildNorm(t reflect.Type, building map[reflect.Type]bool) *normPlan {
	if p, ok := normPlans.Load(t); ok {
		return p.(*normPlan)
	}
	if building[t] {
		return &normPlan{}
	}
	building[t] = true
	fix, ok := makeFixer(t, building)
	delete(building, t)
	p := &normPlan{fix: fix, ok: ok}
	normPlans.Store(t, p)
	return p
}

// makeFixer is the fixer of t's values.
func makeFixer(t reflect.Type, building map[reflect.Type]bool) (fixer, bool) {
	pt := reflect.PointerTo(t)
	if f, ok := fixersByType[t]; ok {
		return f, true
	}
	if pt.Implements(jsonMarshaler) || pt.Implements(jsonUnmarshaler) {
		return roundTrip, pt.Implements(jsonMarshaler) && pt.Implements(jsonUnmarshaler)
	}
	if pt.Implements(textMarshaler) || pt.Implements(textUnmarshaler) {
		return nil, false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return nil, true
	case reflect.String:
		return fixString, true
	case reflect.Pointer:
		return pointerFixer(t, building)
	case reflect.Slice:
		return sliceFixer(t, building)
	case reflect.Map:
		return mapFixer(t, building)
	case reflect.Struct:
		return structFixer(t, building)
	}
	return nil, false // interfaces, arrays, channels, functions, complex numbers
}

// roundTrip sets v to what decoding its own JSON gives, with that JSON
// compacted and HTML-escaped as encoding/json writes a marshaler's output.
func roundTrip(v reflect.Value) bool {
	raw, err := v.Addr().Interface().(json.Marshaler).MarshalJSON()
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
	fresh := reflect.New(v.Type())
	if fresh.Interface().(json.Unmarshaler).UnmarshalJSON(buf.Bytes()) != nil {
		return false
	}
	v.Set(fresh.Elem())
	return true
}

// encodesNull says whether v (of a type with its own JSON methods) is
// written as null, which leaves a pointer to it nil once decoded.
func encodesNull(v reflect.Value) bool {
	if z, ok := v.Addr().Interface().(interface{ IsZero() bool }); ok && isTimeType(v.Type()) {
		return z.IsZero()
	}
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
