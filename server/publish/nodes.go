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
// at the revision of the write; routed says the node's agent runs an
// overlay (its heartbeat sets mqtt.AnnotationNodeIP) and so wants every
// Node. Agents that route nothing (--network-backend none, hollow agents)
// are sent none: a join storm of N such nodes costs nothing instead of N².
// The Node is read with scanRouteNode, or decoded when it cannot read it.
func routeValue(kv *datastore.KeyValue) (out *datastore.KeyValue, routed bool, err error) {
	n, ok := scanRouteNode(kv.Value)
	if !ok {
		n = &corev1.Node{}
		if err := json.Unmarshal(kv.Value, n); err != nil {
			return nil, false, fmt.Errorf("stored node %s: %w", kv.Key, err)
		}
	}
	b, err := mqtt.EncodeRouteNode(n)
	if err != nil {
		return nil, false, fmt.Errorf("stored node %s: %w", kv.Key, err)
	}
	_, routed = n.Annotations[mqtt.AnnotationNodeIP]
	return &datastore.KeyValue{Key: kv.Key, Value: b, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision}, routed, nil
}

// applyNode records a Node change and, when its routes changed, sends it
// to every routed node (the changed one too: an agent reads its own
// podCIDR from it). A node that starts routing gets every Node; one that
// stops has them all removed.
func (x *index) applyNode(ref mqtt.ObjectRef, ev *datastore.Event, out *fanout) error {
	old := x.nodes[ref]
	if ev.Type == datastore.EventDelete {
		if old != nil {
			delete(x.nodes, ref)
			x.toRouted(change{mqtt.Deleted, ref, old}, out)
			delete(x.routed, ref.Name)
		}
		return nil
	}
	kv, routed, err := routeValue(ev.KV)
	if err != nil {
		return err
	}
	if old != nil && bytes.Equal(old.Value, kv.Value) {
		return nil // status churn: nothing a route needs
	}
	x.nodes[ref] = kv
	was := x.routed[ref.Name]
	if routed {
		x.routed[ref.Name] = true
	} else {
		delete(x.routed, ref.Name)
	}
	typ := mqtt.Modified
	if old == nil {
		typ = mqtt.Added
	}
	x.toRouted(change{typ, ref, kv}, out)
	if routed != was {
		x.switchRouting(ref, routed, out)
	}
	x.refreshHosted(ref.Name, ev.Revision, out)
	return nil
}

// switchRouting gives node ref every other Node, and every Service and
// EndpointSlice (routed), or takes them, and its own Node, away.
func (x *index) switchRouting(ref mqtt.ObjectRef, routed bool, out *fanout) {
	if routed {
		for _, c := range append(x.nodeRefs(), x.serviceView(ref.Name)...) {
			if c.ref != ref {
				out.add(ref.Name, c)
			}
		}
		return
	}
	for _, c := range append(x.nodeRefs(), x.serviceRefs()...) {
		out.add(ref.Name, change{typ: mqtt.Deleted, ref: c.ref, kv: c.kv})
	}
}

// toRouted adds c to the view change of every routed node, in name order.
func (x *index) toRouted(c change, out *fanout) {
	names := make([]string, 0, len(x.routed))
	for name := range x.routed {
		names = append(names, name)
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

// recordNode notes one historical Node event for a catch-up of node
// (walk.go): the Node is touched when its routes changed; every Node is
// when node itself started or stopped routing.
func (res *walkResult) recordNode(node string, ref mqtt.ObjectRef, ev *datastore.Event) error {
	var prev, cur *datastore.KeyValue
	var wasRouted, isRouted bool
	var err error
	if ev.Type != datastore.EventCreate && ev.PrevKV != nil {
		if prev, wasRouted, err = routeValue(ev.PrevKV); err != nil {
			return err
		}
	}
	if ev.Type != datastore.EventDelete {
		if cur, isRouted, err = routeValue(ev.KV); err != nil {
			return err
		}
	}
	if prev == nil || cur == nil || !bytes.Equal(prev.Value, cur.Value) {
		res.touched[ref] = true
	}
	if ref.Name == node && wasRouted != isRouted {
		res.allNodes = true
	}
	return nil
}
