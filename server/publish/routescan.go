package publish

import (
	"bytes"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
)

// scanRouteNode reads from a stored Node's bytes only what a RouteNode
// keeps (metadata.name, uid and the route annotations, spec.podCIDR(s),
// status.addresses), skipping the rest with the api package's scanner:
// a heartbeat's Node is mostly images, conditions and capacity, which
// decoding whole cost the publisher more than all else it does per Node.
// ok is false when the bytes hold anything it does not read as
// encoding/json would (a key that only folds to one it reads, an escape
// in a key, a repeated section, a null, a value of another type): then
// the caller decodes. Where json.Unmarshal into a Node succeeds, the Node
// it gives has the same RouteNode (FuzzScanRouteNode); the rest of the
// bytes is checked for nesting only, as stored Nodes are our own JSON.
func scanRouteNode(data []byte) (n *corev1.Node, ok bool) {
	r := routeScan{n: &corev1.Node{}}
	if !eachMember(data, r.top) {
		return nil, false
	}
	return r.n, true
}

// routeScan is one scanRouteNode: the Node it fills and the members it
// has read (a repeated one is merged by encoding/json: left to it).
type routeScan struct {
	n                            *corev1.Node
	meta, spec, status           bool
	name, uid, annotations       bool
	podCIDR, podCIDRs, addresses bool
}

func (r *routeScan) top(key, val []byte) bool {
	switch {
	case isKey(key, "metadata"):
		return once(&r.meta) && eachMember(val, r.metadata)
	case isKey(key, "spec"):
		return once(&r.spec) && eachMember(val, r.nodeSpec)
	case isKey(key, "status"):
		return once(&r.status) && eachMember(val, r.nodeStatus)
	}
	return !mayName(key, "metadata") && !mayName(key, "spec") && !mayName(key, "status")
}

func (r *routeScan) metadata(key, val []byte) bool {
	var ok bool
	switch {
	case isKey(key, "name"):
		r.n.Name, ok = scanString(val)
		return ok && once(&r.name)
	case isKey(key, "uid"):
		var uid string
		uid, ok = scanString(val)
		r.n.UID = types.UID(uid)
		return ok && once(&r.uid)
	case isKey(key, "annotations"):
		return once(&r.annotations) && eachMember(val, r.annotation)
	}
	return !mayName(key, "name") && !mayName(key, "uid") && !mayName(key, "annotations")
}

// annotation keeps the route annotations. A map's keys are matched
// exactly, but one with an escape may decode to such a key.
func (r *routeScan) annotation(key, val []byte) bool {
	k := key[1 : len(key)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		return false
	}
	if !mqtt.IsRouteAnnotation(string(k)) {
		return true
	}
	v, ok := scanString(val)
	if !ok {
		return false
	}
	if r.n.Annotations == nil {
		r.n.Annotations = map[string]string{}
	}
	r.n.Annotations[string(k)] = v
	return true
}

func (r *routeScan) nodeSpec(key, val []byte) bool {
	var ok bool
	switch {
	case isKey(key, "podCIDR"):
		r.n.Spec.PodCIDR, ok = scanString(val)
		return ok && once(&r.podCIDR)
	case isKey(key, "podCIDRs"):
		return val[0] == '[' && json.Unmarshal(val, &r.n.Spec.PodCIDRs) == nil && once(&r.podCIDRs)
	}
	return !mayName(key, "podCIDR") && !mayName(key, "podCIDRs")
}

func (r *routeScan) nodeStatus(key, val []byte) bool {
	if isKey(key, "addresses") {
		return val[0] == '[' && json.Unmarshal(val, &r.n.Status.Addresses) == nil && once(&r.addresses)
	}
	return !mayName(key, "addresses")
}

// isKey: key (with its quotes) is exactly name.
func isKey(key []byte, name string) bool {
	return len(key) == len(name)+2 && string(key[1:len(key)-1]) == name
}

// once marks a member read; false when it was already.
func once(seen *bool) bool {
	if *seen {
		return false
	}
	*seen = true
	return true
}

// scanString is the JSON string val; false when val is not one. One of
// printable ASCII without escapes is its bytes; any other is left to
// encoding/json, which replaces invalid UTF-8 as a whole decode would.
func scanString(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	plain := true
	for _, c := range val[1 : len(val)-1] {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			plain = false
			break
		}
	}
	if plain {
		return string(val[1 : len(val)-1]), true
	}
	var s string
	return s, json.Unmarshal(val, &s) == nil
}

// eachMember calls f with the key (quotes included) and value of each
// member of the JSON object data, which must end where the object does;
// false when data is not such an object or f returns false.
func eachMember(data []byte, f func(key, val []byte) bool) bool {
	i := api.SkipJSONSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	if i = api.SkipJSONSpace(data, i+1); i < len(data) && data[i] == '}' {
		return api.SkipJSONSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		k := api.SkipJSONValue(data, i)
		if k < 0 {
			return false
		}
		key := data[i:k]
		if i = api.SkipJSONSpace(data, k); i >= len(data) || data[i] != ':' {
			return false
		}
		i = api.SkipJSONSpace(data, i+1)
		end := api.SkipJSONValue(data, i)
		if end < 0 || !f(key, data[i:end]) {
			return false
		}
		if i = api.SkipJSONSpace(data, end); i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = api.SkipJSONSpace(data, i+1)
		case '}':
			return api.SkipJSONSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}
