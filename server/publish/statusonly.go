package publish

import (
	"bytes"
	"encoding/json"
	"maps"

	"github.com/bramble-edge/bramble/datastore"
)

// A pod's status is not part of a node's view as the desired topic carries
// it. The node is where pod status comes from: the agent computes it and
// reports it on pods/status, server/nodestatus writes it, and the agent
// never reads pod.status from its desired topic. Sending that write back
// would cost every node a decode, a durable write and a worker wake-up per
// status change of its own pods, for nothing.
//
// So a pod update that changes only the status (and the bookkeeping that
// comes with any write to it: metadata.managedFields, resourceVersion) is
// left out of every node's stream, whoever made it. Nothing is queued for
// the node, so its chain's head stays at the last Event it was sent and
// the next Event's Prev names that one: the chain has no gap. Pods in
// later Events, catch-ups and REST views carry the status they had then.

// statusOnly reports whether the pod update from prev to cur changed its
// status and nothing else (a write of the very same value is not one: it
// is sent as before). Stored values are canonical encodings, so comparing bytes of
// the rest is exact; two spellings of the same content count as a change
// (which is only sent for nothing).
func statusOnly(prev, cur *datastore.KeyValue) bool {
	if prev == nil || cur == nil || bytes.Equal(prev.Value, cur.Value) {
		return false
	}
	a, ok := withoutStatus(prev.Value)
	if !ok {
		return false
	}
	b, ok := withoutStatus(cur.Value)
	return ok && maps.EqualFunc(a, b, bytes.Equal)
}

// withoutStatus splits a stored object into its top-level fields and
// metadata fields (as "metadata.<name>"), leaving out status and the
// metadata a status write touches.
func withoutStatus(value []byte) (map[string][]byte, bool) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(value, &top); err != nil {
		return nil, false
	}
	out := make(map[string][]byte, len(top)+8)
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
