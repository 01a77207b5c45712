package api

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// encoder writes the JSON of the kinds stored on every pod's way (Pod,
// core/v1 Event) without reflection, byte for byte what encoding/json
// writes for the same value: the fields in their struct order, omitempty
// as encoding/json reads it (a struct is never empty), strings escaped as
// it escapes them, map keys sorted, nil slices and maps as null, and the
// marshalers of metav1.Time and resource.Quantity reproduced. What it does
// not write by hand (probes, affinity, security contexts, ...) it hands to
// json.Marshal and appends: compact JSON of a value is the same wherever
// the value stands.
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

// stringMap is an omitempty map[string]string field, its keys sorted.
func (e *encoder) stringMap(key string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	e.field(key)
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys) // bytewise, as encoding/json sorts
	e.b = append(e.b, '{')
	for i, k := range e.keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = appendJSONString(e.b, k)
		e.b = append(e.b, ':')
		e.b = appendJSONString(e.b, m[k])
	}
	e.b = append(e.b, '}')
}

// resourceList is an omitempty corev1.ResourceList field, its keys sorted.
func (e *encoder) resourceList(key string, m corev1.ResourceList) {
	if len(m) == 0 {
		return
	}
	e.field(key)
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, string(k))
	}
	slices.Sort(e.keys)
	e.b = append(e.b, '{')
	for i, k := range e.keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = appendJSONString(e.b, k)
		e.b = append(e.b, ':')
		e.b = appendJSONString(e.b, quantityText(m[corev1.ResourceName(k)]))
	}
	e.b = append(e.b, '}')
}

// quantityStrings caches what Quantity.MarshalJSON writes (unquoted) for
// the quantities met, most of them the same few requests and limits:
// working it out allocates (CanonicalizeBytes) when the quantity has not
// cached its text, and binary ones like 16Mi never do.
var quantityStrings = struct {
	sync.RWMutex
	m map[resource.Quantity]string
}{m: map[resource.Quantity]string{}}

// maxQuantityStrings bounds quantityStrings.
const maxQuantityStrings = 1024

// quantityText is q's JSON string as Quantity.MarshalJSON writes it: its
// cached text when it has one, its canonical form otherwise (String).
func quantityText(q resource.Quantity) string {
	quantityStrings.RLock()
	s, ok := quantityStrings.m[q]
	quantityStrings.RUnlock()
	if ok {
		return s
	}
	key := q
	s = q.String()
	if key.DeepCopy() == key { // no big decimal behind a pointer, which may change
		quantityStrings.Lock()
		if len(quantityStrings.m) < maxQuantityStrings {
			quantityStrings.m[key] = s
		}
		quantityStrings.Unlock()
	}
	return s
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

// appendJSONString is encoding/json's string encoding with HTML escaping
// on: <, > and & as \u003c, \u003e and \u0026, U+2028 and U+2029 escaped,
// control characters as \b \f \n \r \t or \u00XX, invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscapedByte(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

func appendEscapedByte(b []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// htmlSafe marks the ASCII bytes written as they are.
var htmlSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()
