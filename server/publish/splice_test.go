package publish

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzSpliceResourceVersion: whenever the splice applies, it gives the
// same object the decoding path gives.
func FuzzSpliceResourceVersion(f *testing.F) {
	f.Add([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"y"}},"data":{"k":"v"}}`), int64(42))
	f.Add([]byte(`{"kind":"Pod","metadata":{},"spec":{}}`), int64(7))
	f.Add([]byte(`{"kind":"x\"metadata\":{","metadata":{"name":"b"}}`), int64(1))
	f.Fuzz(func(t *testing.T, value []byte, rev int64) {
		var top map[string]any
		if json.Unmarshal(value, &top) != nil {
			return
		}
		if _, ok := top["metadata"].(map[string]any); !ok {
			return
		}
		spliced, ok := spliceResourceVersion(value, rev)
		if !ok {
			return
		}
		want, err := withResourceVersionDecoded(value, rev)
		if err != nil {
			return
		}
		var a, b any
		if err := json.Unmarshal(spliced, &a); err != nil {
			t.Fatalf("splice of %s gave invalid JSON %s: %v", value, spliced, err)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("splice of %s: got %s, want %s", value, spliced, want)
		}
	})
}

// withResourceVersionDecoded is withResourceVersion without the splice.
func withResourceVersionDecoded(value []byte, rev int64) ([]byte, error) {
	saved := metadataOpen
	metadataOpen = []byte("\x00never")
	defer func() { metadataOpen = saved }()
	return withResourceVersion(value, rev)
}
