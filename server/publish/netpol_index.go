package publish

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/mqtt"
)

// The policy view (netpol_scope.go) joins each node's desired stream: the
// index feeds its scope every pod, NetworkPolicy and Namespace change, adds
// what the scope sends to the same revision's fanout, answers inView and
// whole views from it, and tells catch-ups when they cannot be built from
// the history.

// Prefixes of the objects only the policy view reads.
var policyPrefixes = []string{registryPrefix + "core/namespaces/", registryPrefix + "networking.k8s.io/networkpolicies/"}

// loadPolicyInputs lists Namespaces and NetworkPolicies at rev into the scope.
func (x *index) loadPolicyInputs(ctx context.Context, store datastore.Store, rev int64) error {
	x.store = store
	for _, prefix := range policyPrefixes {
		var bad error
		_, err := listwatch.ListAt(ctx, store, prefix, rev, func(kv *datastore.KeyValue) {
			ref, ok := parseKey(kv.Key)
			if !ok || bad != nil {
				return
			}
			_, bad = x.scope.apply(ref, &datastore.Event{Type: datastore.EventCreate, Revision: kv.ModRevision, KV: kv})
		})
		if err = cmp.Or(err, bad); err != nil {
			return fmt.Errorf("list %s: %w", prefix, err)
		}
	}
	if len(x.scope.policies) > 0 {
		return x.startTracking(rev) // the pods at the load's revision
	}
	return nil
}

// applyPolicyView runs an event through the scope and appends its changes
// to the fanout, node by node. Pods are followed only while NetworkPolicies
// exist: a cluster without any pays nothing per pod write. The first policy
// lists the pods at its revision; when the last goes, they are forgotten.
func (x *index) applyPolicyView(ref mqtt.ObjectRef, ev *datastore.Event, out *fanout) error {
	if !isPolicyInput(ref.Resource) {
		return nil
	}
	var listErr error
	firstPolicy := ref.Resource == "networkpolicies" && ev.Type != datastore.EventDelete
	if !x.scope.tracking && (firstPolicy || len(x.scope.policies) > 0) {
		// The pods as of this revision (a pod event's own pod included:
		// applying it again below changes nothing); retried on every event
		// while it fails.
		listErr = x.startTracking(ev.Revision)
	}
	if ref.Resource == mqtt.ResourcePods && !x.scope.tracking {
		return listErr
	}
	more, err := x.scope.apply(ref, ev)
	if err != nil {
		return err
	}
	for i, node := range more.order {
		for _, c := range more.lists[i] {
			out.add(node, c)
		}
	}
	if len(x.scope.policies) == 0 {
		x.scope.stopTracking()
	}
	return listErr
}

// startTracking feeds the scope every bound pod at rev.
func (x *index) startTracking(rev int64) error {
	if x.store == nil {
		return fmt.Errorf("list pods for the policy view: no store")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var bad error
	_, err := listwatch.ListAt(ctx, x.store, registryPrefix+"core/pods/", rev, func(kv *datastore.KeyValue) {
		ref, ok := parseKey(kv.Key)
		if !ok || bad != nil {
			return
		}
		_, bad = x.scope.apply(ref, &datastore.Event{Type: datastore.EventCreate, Revision: kv.ModRevision, KV: kv})
	})
	if err = cmp.Or(err, bad); err != nil {
		x.scope.stopTracking()
		return fmt.Errorf("list pods at %d for the policy view: %w", rev, err)
	}
	x.scope.tracking = true
	return nil
}

func isPolicyInput(resource string) bool {
	return resource == mqtt.ResourcePods || resource == "networkpolicies" || resource == "namespaces"
}

// inPolicyView answers inView for the policy view's objects; ok is false
// for other resources.
func (x *index) inPolicyView(node string, ref mqtt.ObjectRef) (in bool, kv *datastore.KeyValue, ok bool) {
	ns := x.scope.nodes[node]
	switch ref.Resource {
	case "networkpolicies":
		if ns != nil && ns.policies[ref] {
			return true, x.scope.policies[ref].kv, true
		}
	case "namespaces":
		if ns != nil && ns.ns[ref.Name] {
			return true, x.scope.nsKV[ref.Name], true
		}
	case mqtt.ResourcePeerPods:
		pod := mqtt.ObjectRef{Resource: mqtt.ResourcePods, Namespace: ref.Namespace, Name: ref.Name}
		if _, held := ns.sentOf(x.scope.ids, pod); held {
			return true, peerKV(ref, x.scope.pods[pod]), true
		}
	default:
		return false, nil, false
	}
	return false, nil, true
}

func (ns *nodeScope) sentOf(ids map[mqtt.ObjectRef]int32, pod mqtt.ObjectRef) (uint64, bool) {
	id, known := ids[pod]
	if ns == nil || !known {
		return 0, false
	}
	sum, ok := ns.sent[id]
	return sum, ok
}

// policyRelist tells whether a catch-up over res must be a relist instead:
// in a cluster with NetworkPolicies, a pod, policy or namespace written in
// the range may have moved peers in or out of the node's view without
// touching them, and the history alone cannot say which the node holds.
func (x *index) policyRelist(res *walkResult) bool {
	return res.policyWrites || len(x.scope.policies) > 0 && res.podWrites
}
