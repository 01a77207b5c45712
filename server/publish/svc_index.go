package publish

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

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
	return resource == mqtt.ResourceServices || resource == mqtt.ResourceEndpointSlices ||
		resource == mqtt.ResourceServiceSummaries
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
// reduced form changed, sends it where it goes (svc_relay.go): a Service
// to every routed node, a slice to the nodes holding its Service's slices,
// and the Service's summary, when it changed, to every routed node.
func (x *index) applyService(ref mqtt.ObjectRef, ev *datastore.Event, out *fanout) error {
	old := x.svcs[ref]
	c := change{mqtt.Deleted, ref, old}
	if ev.Type == datastore.EventDelete {
		if old == nil {
			return nil
		}
	} else {
		kv, err := proxyValue(ref, ev.KV)
		if err != nil {
			return err
		}
		if old != nil && bytes.Equal(old.Value, kv.Value) {
			return nil // nothing the proxy or DNS reads
		}
		c = change{mqtt.Modified, ref, kv}
		if old == nil {
			c.typ = mqtt.Added
		}
	}
	if ref.Resource == mqtt.ResourceServices {
		return x.applyServiceObject(c, ev.Revision, out)
	}
	return x.applySlice(c, ev.Revision, out)
}

// applyServiceObject records a Service and its relay ports.
func (x *index) applyServiceObject(c change, rev int64, out *fanout) error {
	key := c.ref.Namespace + "/" + c.ref.Name
	oldRefs := x.sliceRefs(key)
	var svc *corev1.Service
	if c.typ == mqtt.Deleted {
		delete(x.svcs, c.ref)
	} else {
		var err error
		if svc, err = decodeService(c.kv.Value); err != nil {
			return fmt.Errorf("service %s: %w", c.ref, err)
		}
		x.svcs[c.ref] = c.kv
	}
	x.relay.setService(key, svc)
	x.toRouted(c, out)
	before, after := x.refreshSummary(key, rev, out)
	x.moveSlices(key, oldRefs, before, after, nil, out)
	return nil
}

// applySlice records a slice: it leaves the Service it belonged to and
// joins the one its label names.
func (x *index) applySlice(c change, rev int64, out *fanout) error {
	key, counts := "", (*sliceCounts)(nil)
	if c.typ != mqtt.Deleted {
		var err error
		if key, counts, err = countSlice(c.kv.Value); err != nil {
			return fmt.Errorf("endpointslice %s: %w", c.ref, err)
		}
	}
	if oldKey, had := x.relay.sliceSvc[c.ref]; had && (counts == nil || oldKey != key) {
		x.moveSlice(oldKey, change{mqtt.Deleted, c.ref, x.svcs[c.ref]}, nil, rev, out)
		c.typ = mqtt.Added
	}
	if counts != nil {
		x.moveSlice(key, c, counts, rev, out)
	}
	return nil
}

// moveSlice sets (counts) or removes (nil) one slice of key and sends the
// change, the slices gained or lost and the summary where they go.
func (x *index) moveSlice(key string, c change, counts *sliceCounts, rev int64, out *fanout) {
	oldRefs := x.sliceRefs(key)
	st := x.relay.state(key)
	if counts == nil {
		delete(st.slices, c.ref)
		delete(x.relay.sliceSvc, c.ref)
		delete(x.svcs, c.ref)
	} else {
		st.slices[c.ref], x.relay.sliceSvc[c.ref], x.svcs[c.ref] = counts, key, c.kv
	}
	x.relay.drop(key)
	before, after := x.refreshSummary(key, rev, out)
	x.moveSlices(key, oldRefs, before, after, &c, out)
}

// serviceView is what a routed node holds of Services: every Service and
// summary, and the slices of Services it holds slices of (ADDED changes).
func (x *index) serviceView(node string) []change {
	out := make([]change, 0, len(x.svcs)+len(x.sums))
	for r, kv := range x.svcs {
		if r.Resource == mqtt.ResourceServices || x.holds(x.sums[x.relay.sliceSvc[r]], node) {
			out = append(out, change{typ: mqtt.Added, ref: r, kv: kv})
		}
	}
	for _, e := range x.sums {
		out = append(out, change{typ: mqtt.Added, ref: e.ref, kv: e.kv})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ref.String() < out[j].ref.String() })
	return out
}

// serviceRefs are every Service, slice and summary, as ADDED changes (what
// a node that stops routing has removed).
func (x *index) serviceRefs() []change {
	out := make([]change, 0, len(x.svcs)+len(x.sums))
	for r, kv := range x.svcs {
		out = append(out, change{typ: mqtt.Added, ref: r, kv: kv})
	}
	for _, e := range x.sums {
		out = append(out, change{typ: mqtt.Added, ref: e.ref, kv: e.kv})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ref.String() < out[j].ref.String() })
	return out
}

// serviceInView says whether a Service, slice or summary is in node's view.
func (x *index) serviceInView(node string, ref mqtt.ObjectRef) (bool, *datastore.KeyValue) {
	switch ref.Resource {
	case mqtt.ResourceServiceSummaries:
		e := x.sums[ref.Namespace+"/"+ref.Name]
		if e == nil {
			return false, nil
		}
		return x.routed[node], e.kv
	case mqtt.ResourceEndpointSlices:
		kv := x.svcs[ref]
		return kv != nil && x.holds(x.sums[x.relay.sliceSvc[ref]], node), kv
	}
	kv := x.svcs[ref]
	return kv != nil && x.routed[node], kv
}

// recordService notes one historical Service or EndpointSlice event for a
// catch-up: the object is touched when its reduced form changed.
func (res *walkResult) recordService(ref mqtt.ObjectRef, ev *datastore.Event) error {
	res.noteSliceService(ref, ev)
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
