package api

import (
	"testing"

	policyv1 "k8s.io/api/policy/v1"
)

// FuzzDecodeEviction: the body of POST pods/{name}/eviction, as JSON or
// protobuf, decodes or is refused with a message, never a panic.
func FuzzDecodeEviction(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1","namespace":"default"}}`))
	f.Add([]byte(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1"},"deleteOptions":{"gracePeriodSeconds":0,"preconditions":{"uid":"u"}}}`))
	f.Add([]byte(`{"apiVersion":"policy/v1beta1","kind":"Eviction","deleteOptions":{"dryRun":["All"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{true, false} {
			obj, _, err := DecodeJSON(EvictionResource, data, strict)
			if err != nil {
				if err.Error() == "" {
					t.Fatal("empty error message")
				}
				continue
			}
			if _, ok := obj.(*policyv1.Eviction); !ok {
				t.Fatalf("decoded %T, want *policyv1.Eviction", obj)
			}
		}
		if _, err := DecodeProtobuf(EvictionResource, data); err != nil && err.Error() == "" {
			t.Fatal("empty protobuf error message")
		}
	})
}
