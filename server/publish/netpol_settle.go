package publish

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// settle sends a node pod ref's summary when it is the node's peer now (one
// of its policies picks it, it runs elsewhere, it has an address) and the
// node holds another version or none, or its removal when it no longer is.
// It reports whether the pod entered or left the node's peers.
func (s *policyScope) settle(node string, id int32, out *fanout) bool {
	ns := s.nodes[node]
	if ns == nil {
		return false
	}
	if ns.count[id] <= 0 {
		delete(ns.count, id)
	}
	ref := s.refs[id]
	x := s.pods[ref]
	want := ns.count[id] > 0 && x != nil && x.node != node && x.summary != nil
	sum, had := ns.sent[id]
	peer := mqtt.ObjectRef{Resource: mqtt.ResourcePeerPods, Namespace: ref.Namespace, Name: ref.Name}
	switch {
	case want && (!had || sum != x.sum):
		typ := mqtt.Modified
		if !had {
			typ = mqtt.Added
			ns.nsUse[ref.Namespace]++
		}
		ns.sent[id] = x.sum
		out.add(node, change{typ, peer, peerKV(peer, x)})
		return !had
	case !want && had:
		delete(ns.sent, id)
		if ns.nsUse[ref.Namespace]--; ns.nsUse[ref.Namespace] <= 0 {
			delete(ns.nsUse, ref.Namespace)
		}
		out.add(node, change{mqtt.Deleted, peer, nil})
		return true
	}
	return false
}

func peerKV(peer mqtt.ObjectRef, x *scopePod) *datastore.KeyValue {
	return &datastore.KeyValue{Key: peer.String(), Value: x.summary, ModRevision: x.rev}
}

// syncNamespaces gives a node with policies the Namespaces of its peers and
// of its own pods, and takes back those no longer needed.
func (s *policyScope) syncNamespaces(node string, out *fanout) {
	ns := s.nodes[node]
	if ns == nil {
		return
	}
	want := map[string]bool{}
	if len(ns.policies) > 0 {
		for name := range ns.nsUse {
			want[name] = true
		}
		for _, pod := range s.byNode[node] {
			want[pod.ref.Namespace] = true
		}
	}
	if sameKeys(want, ns.ns) {
		return
	}
	for _, name := range sortedKeys(want) {
		if kv := s.nsKV[name]; kv != nil && !ns.ns[name] {
			ns.ns[name] = true
			out.add(node, change{mqtt.Added, namespaceRef(name), kv})
		}
	}
	for _, name := range sortedKeys(ns.ns) {
		if !want[name] {
			delete(ns.ns, name)
			out.add(node, change{mqtt.Deleted, namespaceRef(name), nil})
		}
	}
}

func namespaceLabelsOf(name string, kv *datastore.KeyValue) labels.Set {
	var meta struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(kv.Value, &meta) // a namespace that does not decode has only its name label
	out := labels.Set{"kubernetes.io/metadata.name": name}
	for k, v := range meta.Metadata.Labels {
		out[k] = v
	}
	return out
}

// nodeView lists a node's whole policy view (a relist): its namespaces,
// policies and peers, each ADDED.
func (s *policyScope) nodeView(node string) []change {
	ns := s.nodes[node]
	if ns == nil {
		return nil
	}
	var out []change
	for _, name := range sortedKeys(ns.ns) {
		out = append(out, change{mqtt.Added, namespaceRef(name), s.nsKV[name]})
	}
	for _, ref := range sortedRefs(ns.policies) {
		out = append(out, change{mqtt.Added, ref, s.policies[ref].kv})
	}
	peers := map[mqtt.ObjectRef]bool{}
	for id := range ns.sent {
		peers[s.refs[id]] = true
	}
	for _, ref := range sortedRefs(peers) {
		peer := mqtt.ObjectRef{Resource: mqtt.ResourcePeerPods, Namespace: ref.Namespace, Name: ref.Name}
		out = append(out, change{mqtt.Added, peer, peerKV(peer, s.pods[ref])})
	}
	return out
}

// sameKeys tells whether a node holds exactly the namespaces it needs (the
// common case, checked without sorting).
func sameKeys(want, have map[string]bool) bool {
	if len(want) != len(have) {
		return false
	}
	for k := range want {
		if !have[k] {
			return false
		}
	}
	return true
}
