package publish

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
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

// TestEncodeChangeSpliced: a change spliced straight from the stored value
// is the bytes the copy through withResourceVersion gives.
func TestEncodeChangeSpliced(t *testing.T) {
	for _, value := range []string{
		`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","namespace":"default","uid":"u"},"spec":{"nodeName":"pi-1"}}`,
		`{"kind":"ConfigMap","apiVersion":"v1","metadata":{},"data":{"k":"v"}}`,
		`{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"3"}}`, // not spliced: decoded
	} {
		kv := &datastore.KeyValue{Key: "/registry/pods/default/web", Value: []byte(value), ModRevision: 1234}
		c := change{typ: mqtt.Modified, ref: mqtt.ObjectRef{Resource: mqtt.ResourcePods, Namespace: "default", Name: "web"}, kv: kv}
		parts, err := (&encoder{}).encodeChange(c)
		if err != nil {
			t.Fatal(err)
		}
		got := bytes.Join(parts, nil)
		mc, err := (&encoder{}).change(c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := mqtt.EncodeStoredChange(&mc)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: got %s, want %s", value, got, want)
		}
	}
}
