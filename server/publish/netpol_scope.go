package publish

import (
	"encoding/json"
	"fmt"
	"hash/maphash"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// policyScope decides what each node needs to enforce NetworkPolicy for its
// own pods, and nothing more, so a pod change costs bytes only where a policy
// picks that pod:
//
//   - the NetworkPolicies that select at least one of the node's pods;
//   - summaries (mqtt.PeerPod) of the other nodes' pods those policies pick
//     as peers (by pod and namespace selectors, or by a named port for an
//     egress rule with no destinations);
//   - the Namespaces of those peers and of the node's pods (their labels).
//
// It is kept incrementally: each policy's picked pods are computed once for
// all nodes; each node counts, per pod, how many of its policies pick it, so
// a pod change touches only the nodes holding a policy that picks it (before
// or after), and a policy change only the nodes holding it, by the
// difference of what it picks.
type policyScope struct {
	pods     map[mqtt.ObjectRef]*scopePod
	byNode   map[string]map[mqtt.ObjectRef]*scopePod
	byNS     map[string]map[mqtt.ObjectRef]*scopePod
	policies map[mqtt.ObjectRef]*scopePolicy
	picked   map[mqtt.ObjectRef]map[int32]bool  // policy -> the pods (ids) it picks as peers
	holders  map[mqtt.ObjectRef]map[string]bool // policy -> the nodes it is sent to
	// byPolicyNS indexes the policies by namespace.
	byPolicyNS map[string]map[mqtt.ObjectRef]bool
	// Pods are known by small ids in the per-node and per-policy maps (a
	// quarter of the memory of references); an id is freed once no node
	// holds the pod.
	ids  map[mqtt.ObjectRef]int32
	refs []mqtt.ObjectRef
	free []int32
	// tracking: pods are followed (the index keeps it on while policies
	// exist; the scope's own tests feed it pods directly).
	tracking bool
	nsKV     map[string]*datastore.KeyValue
	nsLabels map[string]labels.Set
	nodes    map[string]*nodeScope
	seed     maphash.Seed
}

// scopePod is what the scope keeps of a pod.
type scopePod struct {
	ref     mqtt.ObjectRef
	node    string
	labels  labels.Set
	summary []byte // encoded mqtt.PeerPod; nil: cannot be a peer (no address, host network)
	ports   []mqtt.PeerPort
	sum     uint64 // hash of summary
	rev     int64  // the pod's revision
}

// scopePolicy is a policy with its selectors parsed once.
type scopePolicy struct {
	ref      mqtt.ObjectRef
	kv       *datastore.KeyValue
	selector labels.Selector
	peers    []peerSelector
	named    []mqtt.PeerPort // named ports of egress rules without destinations (Port unused)
}

// peerSelector picks peers: pods of namespace ns (nsSel nil) or of the
// namespaces nsSel matches, whose labels podSel matches.
type peerSelector struct {
	ns     string
	nsSel  labels.Selector
	podSel labels.Selector
}

// nodeScope is one node's view.
type nodeScope struct {
	policies map[mqtt.ObjectRef]bool
	count    map[int32]int32  // pod id -> how many of the node's policies pick it
	sent     map[int32]uint64 // pod id -> hash of the summary the node holds
	nsUse    map[string]int   // peers sent per namespace
	ns       map[string]bool  // namespaces the node holds
}

func newPolicyScope() *policyScope {
	return &policyScope{pods: map[mqtt.ObjectRef]*scopePod{}, byNode: map[string]map[mqtt.ObjectRef]*scopePod{},
		byNS:     map[string]map[mqtt.ObjectRef]*scopePod{},
		policies: map[mqtt.ObjectRef]*scopePolicy{}, picked: map[mqtt.ObjectRef]map[int32]bool{}, ids: map[mqtt.ObjectRef]int32{},
		holders: map[mqtt.ObjectRef]map[string]bool{}, byPolicyNS: map[string]map[mqtt.ObjectRef]bool{}, nsKV: map[string]*datastore.KeyValue{},
		nsLabels: map[string]labels.Set{}, nodes: map[string]*nodeScope{}, seed: maphash.MakeSeed()}
}

// scopePodOf keeps what the scope needs of a bound pod.
func (s *policyScope) scopePodOf(ref mqtt.ObjectRef, pod *corev1.Pod, rev int64) (*scopePod, error) {
	sp := &scopePod{ref: ref, node: pod.Spec.NodeName, labels: labels.Set(pod.Labels), rev: rev}
	if peer, ok := mqtt.PeerPodOf(pod); ok {
		peer.Metadata.Namespace = ref.Namespace
		b, err := peer.Encode()
		if err != nil {
			return nil, fmt.Errorf("pod %s summary: %w", ref, err)
		}
		sp.summary, sp.ports, sp.sum = b, peer.Ports, maphash.Bytes(s.seed, b)
	}
	return sp, nil
}

// scopePolicyOf parses a stored NetworkPolicy; selectors that do not parse
// (validation refuses them) pick nothing.
func scopePolicyOf(ref mqtt.ObjectRef, kv *datastore.KeyValue) (*scopePolicy, error) {
	var np networkingv1.NetworkPolicy
	if err := json.Unmarshal(kv.Value, &np); err != nil {
		return nil, fmt.Errorf("stored networkpolicy %s: %w", kv.Key, err)
	}
	sp := &scopePolicy{ref: ref, kv: kv, selector: selectorOf(&np.Spec.PodSelector)}
	for _, r := range np.Spec.Ingress {
		sp.addPeers(ref.Namespace, r.From)
	}
	for _, r := range np.Spec.Egress {
		sp.addPeers(ref.Namespace, r.To)
		if len(r.To) > 0 {
			continue
		}
		for _, p := range r.Ports {
			if p.Port != nil && p.Port.StrVal != "" {
				sp.named = append(sp.named, mqtt.PeerPort{Name: p.Port.StrVal, Protocol: string(protoOrTCP(p.Protocol))})
			}
		}
	}
	return sp, nil
}

func (sp *scopePolicy) addPeers(ns string, peers []networkingv1.NetworkPolicyPeer) {
	for _, p := range peers {
		if p.PodSelector == nil && p.NamespaceSelector == nil {
			continue // ipBlock: no pods needed
		}
		ps := peerSelector{ns: ns, podSel: labels.Everything()}
		if p.PodSelector != nil {
			ps.podSel = selectorOf(p.PodSelector)
		}
		if p.NamespaceSelector != nil {
			ps.nsSel = selectorOf(p.NamespaceSelector)
		}
		sp.peers = append(sp.peers, ps)
	}
}

func selectorOf(ls *metav1.LabelSelector) labels.Selector {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

func protoOrTCP(p *corev1.Protocol) corev1.Protocol {
	if p == nil || *p == "" {
		return corev1.ProtocolTCP
	}
	return *p
}

// picks reports whether the policy needs pod x as a peer.
func (s *policyScope) picks(p *scopePolicy, x *scopePod) bool {
	if x.summary == nil {
		return false
	}
	for _, ps := range p.peers {
		if ps.nsSel == nil && x.ref.Namespace != ps.ns {
			continue
		}
		if ps.nsSel != nil && !ps.nsSel.Matches(s.namespaceLabels(x.ref.Namespace)) {
			continue
		}
		if ps.podSel.Matches(x.labels) {
			return true
		}
	}
	for _, n := range p.named {
		for _, port := range x.ports {
			if port.Name == n.Name && port.Protocol == n.Protocol {
				return true
			}
		}
	}
	return false
}

// namespaceLabels are a namespace's labels with the name label upstream adds.
func (s *policyScope) namespaceLabels(ns string) labels.Set {
	if l, ok := s.nsLabels[ns]; ok {
		return l
	}
	return labels.Set{"kubernetes.io/metadata.name": ns}
}

// idOf gives a pod its id, assigning one if it has none.
func (s *policyScope) idOf(ref mqtt.ObjectRef) int32 {
	if id, ok := s.ids[ref]; ok {
		return id
	}
	var id int32
	if n := len(s.free); n > 0 {
		id, s.free = s.free[n-1], s.free[:n-1]
		s.refs[id] = ref
	} else {
		id = int32(len(s.refs))
		s.refs = append(s.refs, ref)
	}
	s.ids[ref] = id
	return id
}

// release frees a deleted pod's id (no node or policy holds it any more).
func (s *policyScope) release(ref mqtt.ObjectRef) {
	if id, ok := s.ids[ref]; ok {
		delete(s.ids, ref)
		s.refs[id] = mqtt.ObjectRef{}
		s.free = append(s.free, id)
	}
}

// stopTracking forgets the pods (no policy needs them); nodes hold no peers
// once the last policy is gone.
func (s *policyScope) stopTracking() {
	s.tracking = false
	s.pods = map[mqtt.ObjectRef]*scopePod{}
	s.byNode = map[string]map[mqtt.ObjectRef]*scopePod{}
	s.byNS = map[string]map[mqtt.ObjectRef]*scopePod{}
	s.ids, s.refs, s.free = map[mqtt.ObjectRef]int32{}, nil, nil
	s.picked = map[mqtt.ObjectRef]map[int32]bool{}
}
