package publish

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// mapsOutsideStatus is the decoding comparison statusOnly made before it
// scanned bytes, kept as the tests' oracle: the members outside status
// (and managedFields, resourceVersion in metadata) as a map.
func mapsOutsideStatus(value []byte) (map[string][]byte, bool) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(value, &top); err != nil {
		return nil, false
	}
	out := map[string][]byte{}
	for k, v := range top {
		if k != "status" && k != "metadata" {
			out[k] = v
		}
	}
	if raw, ok := top["metadata"]; ok {
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, false
		}
		for k, v := range meta {
			if k != "managedFields" && k != "resourceVersion" {
				out["metadata."+k] = v
			}
		}
	}
	return out, true
}

func oracleStatusOnly(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return false
	}
	ma, okA := mapsOutsideStatus(a)
	mb, okB := mapsOutsideStatus(b)
	return okA && okB && maps.EqualFunc(ma, mb, bytes.Equal)
}

var statusOnlyCases = []struct {
	name, a, b string
	want       bool
}{
	{"status changed", `{"kind":"Pod","metadata":{"name":"a","managedFields":[{"m":"x"}]},"spec":{"n":"x"},"status":{"phase":"Pending"}}`,
		`{"kind":"Pod","metadata":{"name":"a","managedFields":[{"m":"y"}]},"spec":{"n":"x"},"status":{"phase":"Running"}}`, true},
	{"status added", `{"metadata":{"name":"a"},"spec":{}}`, `{"metadata":{"name":"a"},"spec":{},"status":{"x":"}{\"]"}}`, true},
	{"spec changed", `{"metadata":{"name":"a"},"spec":{"n":"x"},"status":{}}`, `{"metadata":{"name":"a"},"spec":{"n":"y"},"status":{"p":1}}`, false},
	{"label changed", `{"metadata":{"labels":{"a":"1"}},"status":{}}`, `{"metadata":{"labels":{"a":"2"}},"status":{"p":1}}`, false},
	{"metadata member added", `{"metadata":{"name":"a"},"status":{}}`, `{"metadata":{"name":"a","uid":"u"},"status":{"p":1}}`, false},
	{"top member removed", `{"metadata":{},"spec":{},"status":{}}`, `{"metadata":{},"status":{"p":1}}`, false},
	{"same bytes", `{"status":{}}`, `{"status":{}}`, false},
	{"escaped quote in spec", `{"spec":{"c":"a\"b"},"status":1}`, `{"spec":{"c":"a\"c"},"status":2}`, false},
	{"not an object", `[1]`, `[2]`, false},
	{"cut short", `{"spec":{},"status":1}`, `{"spec":{},"status":2`, false},
}

func TestStatusOnlyAgreesWithDecoding(t *testing.T) {
	for _, tc := range statusOnlyCases {
		got := statusOnly(&datastore.KeyValue{Value: []byte(tc.a)}, &datastore.KeyValue{Value: []byte(tc.b)})
		if got != tc.want {
			t.Errorf("%s: statusOnly = %v, want %v", tc.name, got, tc.want)
		}
		if oracle := oracleStatusOnly([]byte(tc.a), []byte(tc.b)); oracle != tc.want {
			t.Errorf("%s: the decoding oracle says %v, want %v", tc.name, oracle, tc.want)
		}
	}
}

// FuzzStatusOnlyNeverHidesAChange: whenever the scan says only the status
// changed, decoding both sides must say so too (a node must never miss a
// change it needs). The scan may say "changed" where decoding does not
// (members in another order): that only sends an event for nothing.
func FuzzStatusOnlyNeverHidesAChange(f *testing.F) {
	for _, tc := range statusOnlyCases {
		f.Add([]byte(tc.a), []byte(tc.b))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if !json.Valid(a) || !json.Valid(b) {
			return // stored values are valid JSON
		}
		if statusOnly(&datastore.KeyValue{Value: a}, &datastore.KeyValue{Value: b}) && !oracleStatusOnly(a, b) {
			t.Fatalf("scan says status only, decoding says more changed:\n%s\n%s", a, b)
		}
	})
}
