package api

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// encoder writes the JSON of the kinds stored on every pod's way (Pod,
// core/v1 Event) without reflection, byte for byte what encoding/json
// writes for the same value: the fields in their struct order, omitempty
// as encoding/json reads it (a struct is never empty), strings escaped as
// it escapes them, map keys sorted, nil slices and maps as null, and the
// marshalers of metav1.Time, resource.Quantity and IntOrString
// reproduced. What it does not write by hand (affinity, security
// contexts, most volume sources, ...) it hands to json.Marshal and
// appends: compact JSON of a value is the same wherever it stands.
// A method named after a struct type writes that struct's members; the
// object helpers (object, objectPtr, objectList) add the key, the braces
// and, for a list, the brackets and commas.
type encoder struct {
	b    []byte
	keys []string // a map's keys, to sort
	err  error    // the first json.Marshal error; the caller then encodes by reflection

	fallbacks int // the values handed to json.Marshal, for tests
}

// encoders keeps encoders' buffers: the encoded bytes are copied out of
// one, so that a write allocates only its result, once, at its size.
var encoders = sync.Pool{New: func() any { return &encoder{b: make([]byte, 0, 4096)} }}

// maxPooledBuffer bounds the buffers kept: one huge object should not
// keep its buffer alive.
const maxPooledBuffer = 64 << 10

// encodeWith runs write on a pooled encoder and returns a copy of what it
// wrote, or ok false when some part failed to encode.
func encodeWith(write func(e *encoder)) (data []byte, ok bool) {
	e := encoders.Get().(*encoder)
	e.b, e.err, e.fallbacks = e.b[:0], nil, 0
	write(e)
	if e.err == nil {
		data, ok = slices.Clone(e.b), true
	}
	if cap(e.b) <= maxPooledBuffer {
		encoders.Put(e)
	}
	return data, ok
}

// field starts the member key of the object being written, after a comma
// unless it is the object's first.
func (e *encoder) field(key string) {
	if e.b[len(e.b)-1] != '{' {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, key...)
	e.b = append(e.b, '"', ':')
}

// elem starts an element of the array being written.
func (e *encoder) elem() {
	if e.b[len(e.b)-1] != '[' {
		e.b = append(e.b, ',')
	}
}

func (e *encoder) str(key, v string) {
	e.field(key)
	e.b = appendJSONString(e.b, v)
}

func (e *encoder) strOmit(key, v string) {
	if v != "" {
		e.str(key, v)
	}
}

func (e *encoder) strPtr(key string, v *string) {
	if v != nil {
		e.str(key, *v)
	}
}

func (e *encoder) int(key string, v int64) {
	e.field(key)
	e.b = strconv.AppendInt(e.b, v, 10)
}

func (e *encoder) intOmit(key string, v int64) {
	if v != 0 {
		e.int(key, v)
	}
}

func (e *encoder) int64Ptr(key string, v *int64) {
	if v != nil {
		e.int(key, *v)
	}
}

func (e *encoder) int32Ptr(key string, v *int32) {
	if v != nil {
		e.int(key, int64(*v))
	}
}

func (e *encoder) bool(key string, v bool) {
	e.field(key)
	e.b = strconv.AppendBool(e.b, v)
}

func (e *encoder) boolOmit(key string, v bool) {
	if v {
		e.bool(key, v)
	}
}

func (e *encoder) boolPtr(key string, v *bool) {
	if v != nil {
		e.bool(key, *v)
	}
}

// time is a metav1.Time field: omitempty never omits a struct, and a zero
// time is null (Time.MarshalJSON).
func (e *encoder) time(key string, t metav1.Time) {
	e.field(key)
	e.b = appendTime(e.b, t.Time, time.RFC3339)
}

func (e *encoder) timePtr(key string, t *metav1.Time) {
	if t != nil {
		e.time(key, *t)
	}
}

// appendTime is the quoted UTC time in layout, or null for the zero time,
// as metav1.Time and MicroTime marshal themselves.
func appendTime(b []byte, t time.Time, layout string) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, layout)
	return append(b, '"')
}

// strings is an omitempty []string field.
func (e *encoder) strings(key string, v []string) {
	if len(v) == 0 {
		return
	}
	e.field(key)
	e.b = append(e.b, '[')
	for _, s := range v {
		e.elem()
		e.b = appendJSONString(e.b, s)
	}
	e.b = append(e.b, ']')
}

// object is a struct field (never omitted): body writes v's members
// between the braces.
func object[T any](e *encoder, key string, v *T, body func(*encoder, *T)) {
	e.field(key)
	e.b = append(e.b, '{')
	body(e, v)
	e.b = append(e.b, '}')
}

// objectPtr is an omitempty pointer to a struct.
func objectPtr[T any](e *encoder, key string, v *T, body func(*encoder, *T)) {
	if v != nil {
		object(e, key, v, body)
	}
}

// objects writes items as the value of the field begun, each element's
// members by body: a nil slice is null, as encoding/json writes it.
func objects[T any](e *encoder, items []T, body func(*encoder, *T)) {
	if items == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i := range items {
		e.elem()
		e.b = append(e.b, '{')
		body(e, &items[i])
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

// objectList is an omitempty list of structs.
func objectList[T any](e *encoder, key string, items []T, body func(*encoder, *T)) {
	if len(items) > 0 {
		e.field(key)
		objects(e, items, body)
	}
}

// fallback writes v through json.Marshal; v should be a pointer or a
// slice, so that methods with pointer receivers are found as they are
// when the whole object is marshaled.
func (e *encoder) fallback(key string, v any) {
	e.field(key)
	e.fallbacks++
	data, err := json.Marshal(v)
	if err != nil {
		if e.err == nil {
			e.err = err
		}
		return
	}
	e.b = append(e.b, data...)
}

// fallbackPtr is an omitempty pointer field written by json.Marshal.
func fallbackPtr[T any](e *encoder, key string, v *T) {
	if v != nil {
		e.fallback(key, v)
	}
}

// fallbackSlice is an omitempty slice field written by json.Marshal.
func fallbackSlice[T any](e *encoder, key string, v []T) {
	if len(v) > 0 {
		e.fallback(key, v)
	}
}
