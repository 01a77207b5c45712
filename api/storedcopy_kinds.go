package api

import (
	"reflect"
	"sync"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The fixers of StoredCopy for times, strings, pointers, slices, maps and
// structs. They change the copy only where a round trip would.

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	// fixersByType are the fixers of the types met most, in plain Go.
	fixersByType = map[reflect.Type]fixer{timeType: fixTime, microTimeType: fixMicroTime,
		reflect.TypeFor[resource.Quantity](): fixQuantity, reflect.TypeFor[corev1.ResourceList](): fixResourceList,
		reflect.TypeFor[map[string]string](): fixStringMap, reflect.TypeFor[[]string](): fixStrings}
)

func isTimeType(t reflect.Type) bool { return t == timeType || t == microTimeType }

// fixTime is metav1.Time's round trip: RFC 3339 in UTC, read back as local
// time; a zero time is written as null and read back zero.
func fixTime(v reflect.Value) bool {
	t := v.Addr().Interface().(*metav1.Time)
	if t.IsZero() {
		t.Time = time.Time{}
		return true
	}
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return false // the encoder refuses it
	}
	t.Time = time.Unix(t.Unix(), 0)
	return true
}

// fixMicroTime is metav1.MicroTime's: the same to the microsecond.
func fixMicroTime(v reflect.Value) bool {
	t := v.Addr().Interface().(*metav1.MicroTime)
	if t.IsZero() {
		t.Time = time.Time{}
		return true
	}
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return false
	}
	t.Time = time.Unix(t.Unix(), int64(t.Nanosecond()/1000*1000))
	return true
}

// fixQuantity is Quantity's round trip: its canonical form parsed again.
func fixQuantity(v reflect.Value) bool {
	q, ok := roundTripQuantity(v.Interface().(resource.Quantity))
	if ok {
		v.Set(reflect.ValueOf(q))
	}
	return ok
}

// The round trips of quantities with no big decimal behind a pointer
// (those DeepCopy leaves equal to themselves) are kept, up to
// maxQuantityTrips: the pods of one template repeat the same few requests
// and limits, and a round trip is a marshal and a parse.
const maxQuantityTrips = 1024

var quantityTrips = struct {
	sync.RWMutex
	m map[resource.Quantity]resource.Quantity
}{m: map[resource.Quantity]resource.Quantity{}}

// roundTripQuantity is q as decoding its JSON gives it.
func roundTripQuantity(q resource.Quantity) (resource.Quantity, bool) {
	quantityTrips.RLock()
	out, ok := quantityTrips.m[q]
	quantityTrips.RUnlock()
	if ok {
		return out, true
	}
	out, ok = marshalParse(q)
	if ok && q.DeepCopy() == q && out.DeepCopy() == out {
		quantityTrips.Lock()
		if len(quantityTrips.m) < maxQuantityTrips {
			quantityTrips.m[q] = out
		}
		quantityTrips.Unlock()
	}
	return out, ok
}

func marshalParse(q resource.Quantity) (resource.Quantity, bool) {
	raw, err := q.MarshalJSON()
	if err != nil || len(raw) < 2 || raw[0] != '"' {
		return q, false
	}
	out, err := resource.ParseQuantity(string(raw[1 : len(raw)-1]))
	return out, err == nil
}

// fixResourceList fixes a pod's requests and limits without reflection.
func fixResourceList(v reflect.Value) bool {
	rl := v.Interface().(corev1.ResourceList)
	for name, q := range rl {
		fixed, ok := roundTripQuantity(q)
		if !ok || !utf8.ValidString(string(name)) {
			return false
		}
		if fixed != q {
			rl[name] = fixed
		}
	}
	return true
}

// fixStringMap declines labels, annotations and other string maps with a
// key or value that is not UTF-8, without reflection (which copies each
// key and value it hands out).
func fixStringMap(v reflect.Value) bool {
	for k, e := range v.Interface().(map[string]string) {
		if !utf8.ValidString(k) || !utf8.ValidString(e) {
			return false
		}
	}
	return true
}

// fixStrings declines a string slice with an element that is not UTF-8.
func fixStrings(v reflect.Value) bool {
	for _, e := range v.Interface().([]string) {
		if !utf8.ValidString(e) {
			return false
		}
	}
	return true
}

// fixString declines a string the encoder would change (not UTF-8).
func fixString(v reflect.Value) bool { return utf8.ValidString(v.String()) }

// pointerFixer: a pointer to a value written as null becomes nil, as the
// decoder leaves a pointer it reads null into.
func pointerFixer(t reflect.Type, building map[reflect.Type]bool) (fixer, bool) {
	elem := buildNorm(t.Elem(), building)
	if !elem.ok {
		return nil, false
	}
	nullable := reflect.PointerTo(t.Elem()).Implements(jsonMarshaler)
	if elem.fix == nil && !nullable {
		return nil, true
	}
	return func(v reflect.Value) bool {
		switch {
		case v.IsNil():
			return true
		case nullable && encodesNull(v.Elem()):
			v.SetZero()
			return true
		case elem.fix == nil:
			return true
		}
		return elem.fix(v.Elem())
	}, true
}

// sliceFixer fixes each element; byte slices (base64) need nothing.
func sliceFixer(t reflect.Type, building map[reflect.Type]bool) (fixer, bool) {
	et := t.Elem()
	if et.Kind() == reflect.Uint8 && !reflect.PointerTo(et).Implements(jsonMarshaler) &&
		!reflect.PointerTo(et).Implements(textMarshaler) {
		return nil, true
	}
	elem := buildNorm(et, building)
	if !elem.ok || elem.fix == nil {
		return nil, elem.ok
	}
	return func(v reflect.Value) bool {
		for i := range v.Len() {
			if !elem.fix(v.Index(i)) {
				return false
			}
		}
		return true
	}, true
}

// mapFixer fixes maps with string keys; map values are not addressable,
// so a value type whose JSON methods need a pointer is declined.
func mapFixer(t reflect.Type, building map[reflect.Type]bool) (fixer, bool) {
	kt, et := t.Key(), t.Elem()
	if kt.Kind() != reflect.String || reflect.PointerTo(kt).Implements(textUnmarshaler) ||
		(reflect.PointerTo(et).Implements(jsonMarshaler) && !et.Implements(jsonMarshaler)) {
		return nil, false
	}
	elem := buildNorm(et, building)
	if !elem.ok {
		return nil, false
	}
	checkOnly := elem.fix == nil || et.Kind() == reflect.String
	return func(v reflect.Value) bool {
		for it := v.MapRange(); it.Next(); {
			if !utf8.ValidString(it.Key().String()) {
				return false
			}
			if checkOnly {
				if et.Kind() == reflect.String && !utf8.ValidString(it.Value().String()) {
					return false
				}
				continue
			}
			e := reflect.New(et).Elem()
			e.Set(it.Value())
			if !elem.fix(e) {
				return false
			}
			v.SetMapIndex(it.Key(), e)
		}
		return true
	}, true
}
