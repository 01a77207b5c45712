package publish

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/mqtt"
)

// index is what the publisher knows of the cluster at the revision it has
// processed: where each bound pod runs and what it references, how many
// pods on each node reference each ConfigMap and Secret, and the current
// value of every ConfigMap and Secret (needed when one enters a node's
// view because a new pod references it).
type index struct {
	pods   map[mqtt.ObjectRef]*podEntry
	byNode map[string]map[mqtt.ObjectRef]bool // the bound pods of each node
	users  map[mqtt.ObjectRef]map[string]int
	objs   map[mqtt.ObjectRef]*datastore.KeyValue
	// nodes holds every Node's RouteNode (nodes.go): in every node's view.
	nodes map[mqtt.ObjectRef]*datastore.KeyValue
	// routed are the nodes whose agents route pods: they get the Nodes,
	// and the Services and EndpointSlices in svcs (svc_index.go).
	routed map[string]bool
	svcs   map[mqtt.ObjectRef]*datastore.KeyValue
	// relay and sums: each Service's slices, relay ports and summary
	// (svc_relay.go, svc_summary.go).
	relay *relayIndex
	sums  map[string]*summaryEntry
	// volumes are the PersistentVolumes and the node each is sent to
	// (volumes.go).
	volumes map[mqtt.ObjectRef]*volumeEntry
	// source, when set, gives decoded pods (CachePods); nil: decode here.
	source PodSource
	// scope is each node's NetworkPolicy view (netpol_*.go); store is
	// where it lists pods when the first policy comes.
	scope *policyScope
	store datastore.Store
}

type podEntry struct {
	node string
	refs []mqtt.ObjectRef
}

// change is one object change for one node, before encoding. kv is the
// value to send (nil: a DELETED without object).
type change struct {
	typ mqtt.ChangeType
	ref mqtt.ObjectRef
	kv  *datastore.KeyValue
}

// fanout collects the changes one datastore event makes to each node's
// view, in order per node.
type fanout struct {
	order []string
	lists [][]change     // lists[i]: the changes to order[i]
	at    map[string]int // node -> its place in order, past smallFanout nodes
	slab  []change       // backs each node's first change (add)
	// released: per node, referenced objects its pods stopped naming
	// while the objects do not exist (no change to send: the node had
	// their deletion already). A catch-up being built must still list
	// them: the deletion may be in the history it reads, the last pod
	// that named them gone only now (catchup.go).
	released map[string][]mqtt.ObjectRef
}

// smallFanout: up to this many nodes, a node's place is found by
// scanning order. Most events reach one node (a pod's), and the map
// they each made was most of what indexing them allocated.
const smallFanout = 8

func (f *fanout) release(node string, r mqtt.ObjectRef) {
	if f.released == nil {
		f.released = map[string][]mqtt.ObjectRef{}
	}
	f.released[node] = append(f.released[node], r)
}

// grow makes room for n more nodes' first changes at once.
func (f *fanout) grow(n int) {
	f.order = slices.Grow(f.order, n)
	f.lists = slices.Grow(f.lists, n)
	f.slab = slices.Grow(f.slab, n)
}

// place is node's place in order, or -1.
func (f *fanout) place(node string) int {
	if f.at != nil {
		if i, ok := f.at[node]; ok {
			return i
		}
		return -1
	}
	return slices.Index(f.order, node)
}

// add appends c to node's changes. A node's first change is cut from one
// slab shared by every node (capped at its one element, so that a second
// change for the node copies rather than overwrite the next node's):
// an event that reaches a thousand nodes once each made a thousand
// one-element slices.
func (f *fanout) add(node string, c change) {
	if i := f.place(node); i >= 0 {
		f.lists[i] = append(f.lists[i], c)
		return
	}
	f.order = append(f.order, node)
	f.slab = append(f.slab, c)
	n := len(f.slab)
	f.lists = append(f.lists, f.slab[n-1:n:n])
	switch {
	case f.at != nil:
		f.at[node] = len(f.order) - 1
	case len(f.order) > smallFanout:
		f.at = make(map[string]int, cap(f.order))
		for i, name := range f.order {
			f.at[name] = i
		}
	}
}

func newIndex() *index {
	return &index{pods: map[mqtt.ObjectRef]*podEntry{}, byNode: map[string]map[mqtt.ObjectRef]bool{},
		users: map[mqtt.ObjectRef]map[string]int{}, objs: map[mqtt.ObjectRef]*datastore.KeyValue{},
		nodes: map[mqtt.ObjectRef]*datastore.KeyValue{}, routed: map[string]bool{}, scope: newPolicyScope(),
		svcs: map[mqtt.ObjectRef]*datastore.KeyValue{}, relay: newRelayIndex(), sums: map[string]*summaryEntry{}, volumes: map[mqtt.ObjectRef]*volumeEntry{}}
}

// load fills an empty index from the store at its latest revision (page by
// page, every resource at the same revision) and returns that revision.
func (x *index) load(ctx context.Context, store datastore.Store) (int64, error) {
	var rev int64
	for _, res := range []string{mqtt.ResourcePods, mqtt.ResourceConfigMaps, mqtt.ResourceSecrets, mqtt.ResourceClaims,
		mqtt.ResourceNodes, mqtt.ResourceVolumes} {
		var bad error
		got, err := listwatch.ListAt(ctx, store, registryPrefix+"core/"+res+"/", rev, func(kv *datastore.KeyValue) {
			ref, ok := parseKey(kv.Key)
			if !ok || bad != nil {
				return
			}
			ev := datastore.Event{Type: datastore.EventCreate, Revision: kv.ModRevision, KV: kv}
			_, bad = x.apply(ref, &ev)
		})
		if err = cmp.Or(err, bad); err != nil {
			return 0, fmt.Errorf("list %s: %w", res, err)
		}
		rev = got
	}
	if err := x.loadServices(ctx, store, rev); err != nil {
		return 0, err
	}
	return rev, x.loadPolicyInputs(ctx, store, rev)
}

// apply moves the index past ev (an event on ref) and returns what it
// changes in each node's view: referenced objects entering a view come
// before the pod that needs them, those leaving after it.
func (x *index) apply(ref mqtt.ObjectRef, ev *datastore.Event) (*fanout, error) {
	out := &fanout{}
	switch {
	case ref.Resource == mqtt.ResourcePods:
		if err := x.applyPod(ref, ev, out); err != nil {
			return out, err
		}
	case isReferenced(ref.Resource):
		x.applyReferenced(ref, ev, out)
	case ref.Resource == mqtt.ResourceNodes:
		return out, x.applyNode(ref, ev, out)
	case ref.Resource == mqtt.ResourceVolumes:
		return out, x.applyVolume(ref, ev, out)
	case isServiceInput(ref.Resource):
		return out, x.applyService(ref, ev, out)
	}
	return out, x.applyPolicyView(ref, ev, out)
}

func (x *index) applyPod(ref mqtt.ObjectRef, ev *datastore.Event, out *fanout) error {
	old := x.pods[ref]
	if old != nil && ev.Type != datastore.EventDelete && statusOnly(ev.PrevKV, ev.KV) {
		// statusonly.go: the node made it, and the spec (where the pod
		// runs, what it references) is byte for byte the one old was
		// placed from: nothing to send, nothing to re-place.
		return nil
	}
	cur, err := x.placement(ref, ev)
	if err != nil {
		return err
	}
	if cur != nil {
		x.use(cur, +1, out)
	}
	switch {
	case old != nil && cur != nil && old.node == cur.node:
		out.add(cur.node, change{mqtt.Modified, ref, ev.KV})
	default:
		if old != nil {
			out.add(old.node, change{mqtt.Deleted, ref, ev.KV})
		}
		if cur != nil {
			out.add(cur.node, change{mqtt.Added, ref, ev.KV})
		}
	}
	if old != nil {
		x.use(old, -1, out)
	}
	x.place(ref, old, cur)
	return nil
}

// place records that the pod ref moved from old to cur (nil: nowhere).
func (x *index) place(ref mqtt.ObjectRef, old, cur *podEntry) {
	if old != nil {
		delete(x.byNode[old.node], ref)
		if len(x.byNode[old.node]) == 0 {
			delete(x.byNode, old.node)
		}
	}
	if cur == nil {
		delete(x.pods, ref)
		return
	}
	x.pods[ref] = cur
	if x.byNode[cur.node] == nil {
		x.byNode[cur.node] = map[mqtt.ObjectRef]bool{}
	}
	x.byNode[cur.node][ref] = true
}

// placement is where the pod version of ev runs and what it references;
// nil when it is deleted or unbound.
func (x *index) placement(ref mqtt.ObjectRef, ev *datastore.Event) (*podEntry, error) {
	if ev.Type == datastore.EventDelete {
		return nil, nil
	}
	var spec *corev1.PodSpec
	if x.source != nil {
		if cached, ok := x.source.PodAt(ref.Namespace, ref.Name, ev.KV.ModRevision); ok {
			spec = &cached.Spec // the cache's: read only
		}
	}
	if spec == nil && unbound(ev.KV.Value) {
		return nil, nil // not decoded: an unbound pod has no placement
	}
	if spec == nil {
		decoded, err := decodePodSpec(ev.KV)
		if err != nil {
			return nil, err
		}
		spec = decoded
	}
	if spec.NodeName == "" {
		return nil, nil
	}
	// The key is the truth for the namespace the references resolve in.
	return &podEntry{node: spec.NodeName, refs: podRefs(spec, ref.Namespace)}, nil
}

// use counts a pod's references on its node up or down; an existing object
// whose count for the node leaves zero enters the node's view, one whose
// count reaches zero leaves it.
func (x *index) use(p *podEntry, delta int, out *fanout) {
	for _, r := range p.refs {
		nodes := x.users[r]
		if nodes == nil {
			nodes = map[string]int{}
			x.users[r] = nodes
		}
		before := nodes[p.node]
		nodes[p.node] = before + delta
		kv := x.objs[r]
		switch {
		case before == 0 && delta > 0 && kv != nil:
			out.add(p.node, change{mqtt.Added, r, kv})
		case before+delta == 0 && kv != nil:
			out.add(p.node, change{mqtt.Deleted, r, kv})
		case before+delta == 0:
			out.release(p.node, r)
		}
		if nodes[p.node] == 0 {
			delete(nodes, p.node)
		}
		if len(nodes) == 0 {
			delete(x.users, r)
		}
	}
}

// applyReferenced records a ConfigMap or Secret change and sends it to
// every node with a pod that references the object.
func (x *index) applyReferenced(ref mqtt.ObjectRef, ev *datastore.Event, out *fanout) {
	if ev.Type == datastore.EventDelete {
		delete(x.objs, ref)
	} else {
		x.objs[ref] = ev.KV
	}
	nodes := make([]string, 0, len(x.users[ref]))
	for node := range x.users[ref] {
		nodes = append(nodes, node)
	}
	sort.Strings(nodes)
	out.grow(len(nodes))
	for _, node := range nodes {
		out.add(node, change{changeType(ev.Type), ref, ev.KV})
	}
}

// inView reports whether ref is in node's view now, with the value to send.
func (x *index) inView(node string, ref mqtt.ObjectRef) (bool, *datastore.KeyValue) {
	if in, kv, ok := x.inPolicyView(node, ref); ok {
		return in, kv
	}
	if ref.Resource == mqtt.ResourcePods {
		p := x.pods[ref]
		return p != nil && p.node == node, nil
	}
	if ref.Resource == mqtt.ResourceNodes {
		kv := x.nodes[ref]
		return kv != nil && x.routed[node], kv
	}
	if isServiceInput(ref.Resource) {
		return x.serviceInView(node, ref)
	}
	if ref.Resource == mqtt.ResourceVolumes {
		v := x.volumes[ref]
		return v != nil && v.node == node, volumeKV(v)
	}
	kv := x.objs[ref]
	return kv != nil && x.users[ref][node] > 0, kv
}

// nodeView lists what is in node's view now: its pods, and the ConfigMaps
// and Secrets they reference that exist (ADDED, with their values), and
// every Node, Service and EndpointSlice when it routes (nodes.go,
// svc_index.go).
func (x *index) nodeView(node string) (pods []mqtt.ObjectRef, refs []change) {
	seen := map[mqtt.ObjectRef]bool{}
	for ref := range x.byNode[node] {
		pods = append(pods, ref)
		for _, r := range x.pods[ref].refs {
			if kv := x.objs[r]; kv != nil && !seen[r] {
				seen[r] = true
				refs = append(refs, change{typ: mqtt.Added, ref: r, kv: kv})
			}
		}
	}
	refs = append(refs, x.scope.nodeView(node)...)
	refs = append(refs, x.volumeView(node)...)
	sort.Slice(pods, func(i, j int) bool { return pods[i].String() < pods[j].String() })
	sort.Slice(refs, func(i, j int) bool { return refs[i].ref.String() < refs[j].ref.String() })
	if x.routed[node] {
		refs = append(append(x.nodeRefs(), x.serviceView(node)...), refs...)
	}
	return pods, refs
}
