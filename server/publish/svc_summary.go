package publish

import (
	"encoding/json"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// summaryEntry is a Service's current summary as sent (kv) and its hosts:
// the nodes its slices go to. No entry: the slices go to every routed node.
type summaryEntry struct {
	ref   mqtt.ObjectRef
	kv    *datastore.KeyValue
	hosts map[string]bool
}

// holds says whether node's view holds the slices of a Service whose
// summary is e.
func (x *index) holds(e *summaryEntry, node string) bool {
	return x.routed[node] && (e == nil || e.hosts[node])
}

// buildSummary is the Service's summary at rev, or nil when its slices go
// everywhere (docs/SERVICES.md: headless, unhosted endpoints, a host
// without a relay address, no relay port).
func (x *index) buildSummary(key string, rev int64) *summaryEntry {
	st := x.relay.states[key]
	if st == nil || st.svc == nil || len(st.relays) == 0 {
		return nil
	}
	counts, unhosted := st.hosts()
	if unhosted {
		return nil
	}
	sum := &mqtt.ServiceSummary{Metadata: mqtt.SummaryMeta{Namespace: st.svc.Namespace, Name: st.svc.Name}, Relays: st.relays}
	e := &summaryEntry{ref: mqtt.ObjectRef{Resource: mqtt.ResourceServiceSummaries, Namespace: st.svc.Namespace, Name: st.svc.Name},
		hosts: map[string]bool{}}
	nodes := make([]string, 0, len(counts))
	for n := range counts {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		route := x.nodes[mqtt.ObjectRef{Resource: mqtt.ResourceNodes, Name: n}]
		if route == nil {
			return nil
		}
		ip, ok := relayAddr(route.Value)
		if !ok {
			return nil
		}
		sum.Hosts = append(sum.Hosts, mqtt.SummaryHost{Node: n, IP: ip.String(), Endpoints: min(counts[n], mqtt.MaxHostEndpoints)})
		e.hosts[n] = true
	}
	b, err := json.Marshal(sum)
	if err != nil {
		return nil
	}
	e.kv = &datastore.KeyValue{Key: "/bramble/summaries/" + key, Value: b, CreateRevision: rev, ModRevision: rev}
	return e
}

// refreshSummary recomputes key's summary at rev and sends its change to
// every routed node; it returns the entries before and after.
func (x *index) refreshSummary(key string, rev int64, out *fanout) (before, after *summaryEntry) {
	before, after = x.sums[key], x.buildSummary(key, rev)
	switch {
	case after == nil && before == nil:
		return nil, nil
	case after == nil:
		delete(x.sums, key)
		x.toRouted(change{typ: mqtt.Deleted, ref: before.ref}, out)
		return before, nil
	case before != nil && string(before.kv.Value) == string(after.kv.Value):
		return before, before // same hosts, counts and ports: nothing sent
	}
	x.sums[key] = after
	typ := mqtt.Modified
	if before == nil {
		typ = mqtt.Added
	}
	x.toRouted(change{typ, after.ref, after.kv}, out)
	return before, after
}

// moveSlices sends each routed node the slices of key it gains or loses
// when the summary goes from before to after; a node keeping them gets
// same (a slice's own change) when set.
func (x *index) moveSlices(key string, oldRefs []mqtt.ObjectRef, before, after *summaryEntry, same *change, out *fanout) {
	for _, node := range sortedNodes(x.routed) {
		was, is := x.holds(before, node), x.holds(after, node)
		switch {
		case was && is && same != nil:
			out.add(node, *same)
		case !was && is:
			for _, r := range x.sliceRefs(key) {
				out.add(node, change{typ: mqtt.Added, ref: r, kv: x.svcs[r]})
			}
		case was && !is:
			for _, r := range oldRefs {
				out.add(node, change{typ: mqtt.Deleted, ref: r})
			}
		}
	}
}

// sliceRefs are key's slices, sorted.
func (x *index) sliceRefs(key string) []mqtt.ObjectRef {
	st := x.relay.states[key]
	if st == nil {
		return nil
	}
	out := make([]mqtt.ObjectRef, 0, len(st.slices))
	for r := range st.slices {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// decodeService reads a reduced Service.
func decodeService(value []byte) (*corev1.Service, error) {
	var s corev1.Service
	if err := json.Unmarshal(value, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// refreshHosted recomputes the summaries of the Services node hosts
// endpoints of, after its route (its pod CIDR: the relay address) changed.
func (x *index) refreshHosted(node string, rev int64, out *fanout) {
	keys := make([]string, 0)
	for key, st := range x.relay.states {
		if counts, _ := st.hosts(); counts[node] > 0 {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		oldRefs := x.sliceRefs(key)
		before, after := x.refreshSummary(key, rev, out)
		x.moveSlices(key, oldRefs, before, after, nil, out)
	}
}
