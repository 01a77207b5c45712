package publish

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// decodedRouteValue is routeValue by a whole decode, as it was before
// scanRouteNode: what the scanner is held to.
func decodedRouteValue(data []byte) ([]byte, bool, error) {
	var n corev1.Node
	if err := json.Unmarshal(data, &n); err != nil {
		return nil, false, err
	}
	b, err := mqtt.EncodeRouteNode(&n)
	_, routed := n.Annotations[mqtt.AnnotationNodeIP]
	return b, routed, err
}

// routeSeed is a stored Node's bytes and whether scanRouteNode reads
// them (false: it leaves them to encoding/json).
type routeSeed struct {
	data    []byte
	scanned bool
}

func routeSeeds(tb testing.TB) []routeSeed {
	tb.Helper()
	big := bigNode("pi-1", 3, corev1.ConditionTrue)
	big.Annotations[mqtt.AnnotationNetworkBackend] = "vxlan"
	big.Annotations["other"] = "kept out"
	big.UID = "uid-1"
	stored, err := json.Marshal(big)
	if err != nil {
		tb.Fatal(err)
	}
	bare, _ := json.Marshal(&corev1.Node{})
	out := []routeSeed{{stored, true}, {bare, true}}
	for _, s := range []struct {
		data    string
		scanned bool
	}{
		{`{"metadata":{"name":"a","uid":"u","annotations":{"bramble.io/node-ip":"10.0.0.1","x":"y"}},` +
			`"spec":{"podCIDR":"10.42.0.0/24","podCIDRs":["10.42.0.0/24"]},"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}}`, true},
		{`{"Metadata":{"name":"a"}}`, false},
		{`{"metadata":{"NAME":"a"}}`, false},
		{`{"metadata":{"n\u0061me":"a"}}`, false},
		{`{"metadata":{"name":"a"},"metadata":{"uid":"u"}}`, false},
		{`{"metadata":{"name":"a","name":"b"}}`, false},
		{`{"metadata":{"annotations":{"bramble.io/node-ip":"1","bramble.io/node-ip":"2"}}}`, true}, // the last, as a map decodes
		{`{"metadata":{"annotations":{"bramble.io\/node-ip":"1"}}}`, false},
		{`{"metadata":{"annotations":{"bramble.io/node-ip":null}}}`, false},
		{`{"metadata":{"annotations":{"other":null}}}`, true},
		{`{"metadata":{"annotations":null}}`, false},
		{`{"metadata":{"name":"\u00e9\ud800 tab\t"}}`, true},
		{"{\"metadata\":{\"name\":\"\xff\xfe\"}}", true},
		{"{\"\u017ftatus\":{\"addresses\":[]}}", false},
		{`{"spec":{"podCIDRs":null,"podCIDR":"x"}}`, false},
		{`{"spec":{"podCIDRs":[],"podcidr":"x"}}`, false},
		{`{"status":{"addresses":[{"Type":"InternalIP","address":"1"}],"images":[{"names":["a"]}]}}`, true},
		{`{"status":{"addresses":{}}}`, false},
		{`{"spec":null}`, false},
		{`null`, false},
		{`{}`, true},
		{` { "metadata" : { "name" : "a" } } `, true},
		{`{"metadata":{"name":"a"}} x`, false},
		{`{"metadata":{"name":"a"},}`, false},
		{`{"metadata":{"name":5}}`, false},
	} {
		out = append(out, routeSeed{[]byte(s.data), s.scanned})
	}
	return out
}

// FuzzScanRouteNode: where a whole decode of the bytes succeeds,
// routeValue sends what the decoded Node's RouteNode is, and says routed
// alike. (Bytes a whole decode refuses, which a stored Node never holds,
// routeValue may read: it checks only the parts it reads.)
func FuzzScanRouteNode(f *testing.F) {
	for _, s := range routeSeeds(f) {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantRouted, err := decodedRouteValue(data)
		if err != nil {
			return
		}
		got, routed, err := routeValue(&datastore.KeyValue{Key: "/registry/core/nodes/n", Value: data})
		if err != nil || !bytes.Equal(got.Value, want) || routed != wantRouted {
			t.Errorf("routeValue(%q) = %s, %v, %v; decoded: %s, %v", data, valueOf(got), routed, err, want, wantRouted)
		}
	})
}

func valueOf(kv *datastore.KeyValue) []byte {
	if kv == nil {
		return nil
	}
	return kv.Value
}

func TestScanRouteNodeMatchesDecode(t *testing.T) {
	for _, s := range routeSeeds(t) {
		data := s.data
		want, wantRouted, derr := decodedRouteValue(data)
		got, routed, err := routeValue(&datastore.KeyValue{Key: "/registry/core/nodes/n", Value: data})
		if derr != nil {
			continue // see FuzzScanRouteNode
		}
		if err != nil || !bytes.Equal(got.Value, want) || routed != wantRouted {
			t.Errorf("routeValue(%s) = %s, %v, %v; want %s, %v", data, valueOf(got), routed, err, want, wantRouted)
		}
	}
}

// TestScanRouteNodeReads: the stored Nodes the server writes are read by
// the scanner, not decoded; what encoding/json would read otherwise is
// left to it.
func TestScanRouteNodeReads(t *testing.T) {
	for _, s := range routeSeeds(t) {
		if _, ok := scanRouteNode(s.data); ok != s.scanned {
			t.Errorf("scanRouteNode(%s): ok %v, want %v", s.data, ok, s.scanned)
		}
	}
}

func BenchmarkRouteValue(b *testing.B) {
	n := bigNode("pi-1", 3, corev1.ConditionTrue)
	for i := range 20 {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeConditionType(fmt.Sprint("C", i)), Status: "False", Reason: "Fine", Message: "nothing to say"})
	}
	data, _ := json.Marshal(n)
	kv := &datastore.KeyValue{Key: "/registry/core/nodes/pi-1", Value: data}
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, _, err := routeValue(kv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, _, err := decodedRouteValue(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
