package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// Source is what the policy part reads of the agent's local store (the
// agent's Store has this method): the NetworkPolicies, Namespaces and peer
// pod summaries the server sends the node, kept so enforcement holds
// offline.
type Source interface {
	List(resource string) map[mqtt.ObjectRef]json.RawMessage
}

// LocalPod describes a pod of this node from its spec and the addresses its
// sandbox gave it.
func LocalPod(pod *corev1.Pod, ips []netip.Addr) Pod {
	p := Pod{Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID), Labels: pod.Labels,
		IPs: ips, HostNetwork: pod.Spec.HostNetwork}
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name != "" {
				p.Ports = append(p.Ports, Port{Name: cp.Name, Number: cp.ContainerPort, Protocol: string(cp.Protocol)})
			}
		}
	}
	return p
}

// InputFrom builds a compilation's input from the store and the node's own
// pods. An object that does not decode is an error naming it: enforcing
// without it could open or close what it would not.
func InputFrom(src Source, local []Pod) (*Input, error) {
	in := &Input{Local: local, Namespaces: map[string]map[string]string{}}
	for ref, raw := range src.List("namespaces") {
		var ns corev1.Namespace
		if err := json.Unmarshal(raw, &ns); err != nil {
			return nil, fmt.Errorf("stored %s: %w", ref, err)
		}
		in.Namespaces[ref.Name] = ns.Labels
	}
	for ref, raw := range src.List("networkpolicies") {
		np := &networkingv1.NetworkPolicy{}
		if err := json.Unmarshal(raw, np); err != nil {
			return nil, fmt.Errorf("stored %s: %w", ref, err)
		}
		np.Namespace, np.Name = ref.Namespace, ref.Name
		in.Policies = append(in.Policies, np)
	}
	for ref, raw := range src.List(mqtt.ResourcePeerPods) {
		peer, err := peerFrom(raw)
		if err != nil {
			return nil, fmt.Errorf("stored %s: %w", ref, err)
		}
		in.Peers = append(in.Peers, peer)
	}
	sort.Slice(in.Peers, func(i, j int) bool { return in.Peers[i].UID < in.Peers[j].UID })
	return in, nil
}

func peerFrom(raw []byte) (Pod, error) {
	pp, err := mqtt.DecodePeerPod(raw)
	if err != nil {
		return Pod{}, err
	}
	m := pp.Metadata
	p := Pod{Namespace: m.Namespace, Name: m.Name, UID: m.UID, Labels: m.Labels}
	if p.UID == "" {
		p.UID = m.Namespace + "/" + m.Name
	}
	for _, ip := range pp.IPs {
		p.IPs = append(p.IPs, netip.MustParseAddr(ip)) // DecodePeerPod checked them
	}
	for _, port := range pp.Ports {
		p.Ports = append(p.Ports, Port{Name: port.Name, Number: port.Port, Protocol: port.Protocol})
	}
	return p, nil
}

// Enforce compiles what the store and the node's pods say and programs it
// in one transaction. The agent calls it at start (from the local store
// alone, server or not) and after each applied batch that touched pods,
// policies, namespaces or peers.
func (a *Applier) Enforce(ctx context.Context, src Source, local []Pod) (*Ruleset, error) {
	in, err := InputFrom(src, local)
	if err != nil {
		return nil, err
	}
	rs := Compile(in)
	return rs, a.Apply(ctx, rs)
}
