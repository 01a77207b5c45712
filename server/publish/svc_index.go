package publish

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"sort"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/mqtt"
)

// Every routed node's view holds every Service and every EndpointSlice
// (docs/SERVICES.md), reduced to what the agent's proxy and cluster DNS
// read (mqtt.ProxyService, mqtt.ProxySlice), as it holds every Node. A
// write that leaves the reduced form as it was reaches no agent; any other
// goes to every routed node once. Nodes that route nothing (hollow agents,
// --network-backend none) are sent none. This is the simple version: a
// node running no pod of a Service still gets each of its endpoint
// changes; the relay design of docs/SERVICES.md would spare it.

// svcPrefixes are where Services and EndpointSlices are stored.
var svcPrefixes = []string{registryPrefix + "core/services/", registryPrefix + "discovery.k8s.io/endpointslices/"}

func isServiceInput(resource string) bool {
	return resource == mqtt.ResourceServices || resource == mqtt.ResourceEndpointSlices
}

// proxyValue is the KeyValue sent for a stored Service or EndpointSlice:
// its reduced JSON at the revision of the write.
func proxyValue(ref mqtt.ObjectRef, kv *datastore.KeyValue) (*datastore.KeyValue, error) {
	b, err := mqtt.EncodeProxyObject(ref.Resource, kv.Value)
	if err != nil {
		return nil, fmt.Errorf("stored %s: %w", kv.Key, err)
	}
	return &datastore.KeyValue{Key: kv.Key, Value: b, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision}, nil
}

// loadServices adds every Service and EndpointSlice at rev to the index.
func (x *index) loadServices(ctx context.Context, store datastore.Store, rev int64) error {
	for _, prefix := range svcPrefixes {
		var bad error
		_, err := listwatch.ListAt(ctx, store, prefix, rev, func(kv *datastore.KeyValue) {
			ref, ok := parseKey(kv.Key)
			if !ok || bad != nil {
				return
			}
			ev := datastore.Event{Type: datastore.EventCreate, Revision: kv.ModRevision, KV: kv}
			bad = x.applyService(ref, &ev, &fanout{})
		})
		if err = cmp.Or(err, bad); err != nil {
			return fmt.Errorf("list %s: %w", prefix, err)
		}
	}
	return nil
}

// applyService records a Service or EndpointSlice change and, when its
// reduced form changed, sends it to every routed node.
func (x *index) applyService(ref mqtt.ObjectRef, ev *datastore.Event, out *fanout) error {
	old := x.svcs[ref]
	if ev.Type == datastore.EventDelete {
		if old != nil {
			delete(x.svcs, ref)
			x.toRouted(change{mqtt.Deleted, ref, old}, out)
		}
		return nil
	}
	kv, err := proxyValue(ref, ev.KV)
	if err != nil {
		return err
	}
	if old != nil && bytes.Equal(old.Value, kv.Value) {
		return nil // nothing the proxy or DNS reads
	}
	x.svcs[ref] = kv
	typ := mqtt.Modified
	if old == nil {
		typ = mqtt.Added
	}
	x.toRouted(change{typ, ref, kv}, out)
	return nil
}

// serviceRefs are every Service and EndpointSlice, as ADDED changes.
func (x *index) serviceRefs() []change {
	out := make([]change, 0, len(x.svcs))
	for r, kv := range x.svcs {
		out = append(out, change{typ: mqtt.Added, ref: r, kv: kv})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ref.String() < out[j].ref.String() })
	return out
}

// recordService notes one historical Service or EndpointSlice event for a
// catch-up: the object is touched when its reduced form changed.
func (res *walkResult) recordService(ref mqtt.ObjectRef, ev *datastore.Event) error {
	if ev.Type != datastore.EventUpdate || ev.PrevKV == nil {
		res.touched[ref] = true
		return nil
	}
	prev, err := proxyValue(ref, ev.PrevKV)
	if err != nil {
		return err
	}
	cur, err := proxyValue(ref, ev.KV)
	if err != nil {
		return err
	}
	if !bytes.Equal(prev.Value, cur.Value) {
		res.touched[ref] = true
	}
	return nil
}
