package api

import (
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The encoder's maps: keys sorted as encoding/json sorts them, quantities
// written as Quantity.MarshalJSON writes them.

// stringMap is an omitempty map[string]string field, its keys sorted.
func (e *encoder) stringMap(key string, m map[string]string) {
	sortedMap(e, key, m, identity)
}

// resourceList is an omitempty corev1.ResourceList field, its keys sorted.
func (e *encoder) resourceList(key string, m corev1.ResourceList) {
	sortedMap(e, key, m, quantityText)
}

func identity(s string) string { return s }

// sortedMap is an omitempty map field of string values (text gives a
// value's), its keys sorted bytewise, as encoding/json sorts them.
func sortedMap[K ~string, V any](e *encoder, key string, m map[K]V, text func(V) string) {
	if len(m) == 0 {
		return
	}
	e.field(key)
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
		e.b = appendJSONString(e.b, text(m[K(k)]))
	}
	e.b = append(e.b, '}')
	clear(e.keys) // a pooled encoder keeps no keys alive
	e.keys = e.keys[:0]
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
