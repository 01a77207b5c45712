package api

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestDecodeStoredIsLenientButCaseSensitive: a stored value's unknown and
// duplicate fields are not errors (the last duplicate wins, as in the
// strict decoder's value), a field spelled in another case is not taken
// for the real one, and request bodies are still refused for all three.
func TestDecodeStoredIsLenientButCaseSensitive(t *testing.T) {
	r := res(t, "ConfigMap")
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default"},` +
		`"data":{"k":"first"},"data":{"k":"last"},"extra":1,"Immutable":true}`
	obj, err := DecodeStored(r, []byte(body), 7)
	if err != nil {
		t.Fatalf("DecodeStored: %v", err)
	}
	cm := obj.(*corev1.ConfigMap)
	if cm.Data["k"] != "last" || cm.Immutable != nil || cm.ResourceVersion != "7" || cm.Kind != "ConfigMap" {
		t.Fatalf("got data %v, immutable %v, rv %q, kind %q; want last, nil, 7, ConfigMap",
			cm.Data, cm.Immutable, cm.ResourceVersion, cm.Kind)
	}
	lax, warns, err := DecodeJSON(r, []byte(body), false)
	if err != nil || len(warns) != 3 {
		t.Fatalf("DecodeJSON non-strict: got %d warnings (%v), err %v; want 3", len(warns), warns, err)
	}
	lax.SetResourceVersion("7")
	if !reflect.DeepEqual(lax, obj) {
		t.Fatalf("stored decode differs from the request decoder's value:\n got %+v\nwant %+v", obj, lax)
	}
	if _, _, err := DecodeJSON(r, []byte(body), true); err == nil || !strings.Contains(err.Error(), "strict decoding error") {
		t.Fatalf("strict DecodeJSON: got %v, want a strict decoding error", err)
	}
}

// TestDecodeStoredRefusesAnotherKind: the kind check stays.
func TestDecodeStoredRefusesAnotherKind(t *testing.T) {
	_, err := DecodeStored(res(t, "ConfigMap"), []byte(`{"apiVersion":"v1","kind":"Secret"}`), 1)
	if err == nil || !strings.Contains(err.Error(), "does not match the expected kind") {
		t.Fatalf("got %v, want a kind mismatch", err)
	}
}

func BenchmarkDecodeStoredPod(b *testing.B) {
	r, data := res(b, "Pod"), podRevisions(b)[2]
	b.Run("stored", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := DecodeStored(r, data, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("strict", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, _, err := DecodeJSON(r, data, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}
