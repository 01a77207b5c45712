package publish

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// Every node's view holds every Node (DESIGN.md data flow 4: the Nodes,
// for routes), reduced to what routes need (mqtt.RouteNode: podCIDR(s),
// addresses, the vxlan MAC and node IP annotations). A Node write that
// leaves that part as it was reaches no agent: heartbeat-driven status
// churn (conditions, images, capacity) stays on the server, so a 1,000-node
// cluster sends nothing for it instead of 1,000 x 1,000 messages. A route
// change (a node joining, its podCIDR assigned, its IP or MAC changing, its
// deletion) goes to every node once.

// routeValue is the KeyValue sent for a stored Node: its RouteNode JSON,
// at the revision of the write.
func routeValue(kv *datastore.KeyValue) (*datastore.KeyValue, error) {
	var n corev1.Node
	if err := json.Unmarshal(kv.Value, &n); err != nil {
		return nil, fmt.Errorf("stored node %s: %w", kv.Key, err)
	}
	b, err := mqtt.EncodeRouteNode(&n)
	if err != nil {
		return nil, fmt.Errorf("stored node %s: %w", kv.Key, err)
	}
	return &datastore.KeyValue{Key: kv.Key, Value: b, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision}, nil
}

// applyNode records a Node change and, when its routes changed, sends it
// to every node (the changed one too: an agent reads its own podCIDR from
// it).
func (x *index) applyNode(ref mqtt.ObjectRef, ev *datastore.Event, out *fanout) error {
	old := x.nodes[ref]
	if ev.Type == datastore.EventDelete {
		if old != nil {
			delete(x.nodes, ref)
			x.toEveryNode(change{mqtt.Deleted, ref, old}, out)
		}
		return nil
	}
	kv, err := routeValue(ev.KV)
	if err != nil {
		return err
	}
	if old != nil && bytes.Equal(old.Value, kv.Value) {
		return nil // status churn: nothing a route needs
	}
	x.nodes[ref] = kv
	typ := mqtt.Modified
	if old == nil {
		typ = mqtt.Added
	}
	x.toEveryNode(change{typ, ref, kv}, out)
	return nil
}

// toEveryNode adds c to the view change of every node, in name order.
func (x *index) toEveryNode(c change, out *fanout) {
	names := make([]string, 0, len(x.nodes))
	for r := range x.nodes {
		names = append(names, r.Name)
	}
	sort.Strings(names)
	for _, name := range names {
		out.add(name, c)
	}
}

// nodeRefs are every Node's RouteNode, as ADDED changes (a full view).
func (x *index) nodeRefs() []change {
	out := make([]change, 0, len(x.nodes))
	for r, kv := range x.nodes {
		out = append(out, change{typ: mqtt.Added, ref: r, kv: kv})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ref.Name < out[j].ref.Name })
	return out
}

// nodeRoutesChanged reports whether a historical Node event changed what
// routes need (for catch-ups, walk.go).
func nodeRoutesChanged(ev *datastore.Event) (bool, error) {
	if ev.Type != datastore.EventUpdate || ev.PrevKV == nil {
		return true, nil
	}
	prev, err := routeValue(ev.PrevKV)
	if err != nil {
		return false, err
	}
	cur, err := routeValue(ev.KV)
	if err != nil {
		return false, err
	}
	return !bytes.Equal(prev.Value, cur.Value), nil
}
