// Package policy enforces Kubernetes NetworkPolicy on one node with nftables.
//
// Compile turns the node's own pods, the cluster's peer pods, the namespaces'
// labels and the NetworkPolicies into a Ruleset: verdict maps from each
// isolated local pod's IP to a chain, chains per policy and direction, and
// interval sets of peer addresses. An Applier writes a Ruleset into the table
// `inet bramble` in one nftables transaction. Compile is pure; everything that
// touches the kernel lives in the Applier.
package policy

import (
	"net/netip"

	networkingv1 "k8s.io/api/networking/v1"
)

// Port is a container port of a pod, as named ports resolve against it.
type Port struct {
	Name     string
	Number   int32
	Protocol string // "TCP" (default when empty), "UDP" or "SCTP"
}

// Pod is what the compiler needs to know of a pod: where it lives, how
// selectors see it, its addresses and its named ports.
type Pod struct {
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	IPs         []netip.Addr
	HostNetwork bool // host-network pods share the node's address; no policy applies to them
	Ports       []Port
}

// Input is everything one compilation reads.
type Input struct {
	// Local are the pods running on this node: the ones policies are enforced for.
	Local []Pod
	// Peers are the pods of the whole cluster that selectors may pick as peers
	// (local pods may be listed again; duplicates by UID are ignored).
	Peers []Pod
	// Namespaces maps a namespace's name to its labels.
	Namespaces map[string]map[string]string
	// Policies are the NetworkPolicies of the namespaces of interest.
	Policies []*networkingv1.NetworkPolicy
}

// nsNameLabel is the label the API server puts on every namespace; we add it
// when the input lacks it so selectors on it work as upstream.
const nsNameLabel = "kubernetes.io/metadata.name"

// nsLabels gives a namespace's labels with the name label always present.
func (in *Input) nsLabels(ns string) map[string]string {
	src := in.Namespaces[ns]
	if src[nsNameLabel] == ns {
		return src
	}
	out := make(map[string]string, len(src)+1)
	for k, v := range src {
		out[k] = v
	}
	out[nsNameLabel] = ns
	return out
}

// peerPods lists the peers and the local pods once each (by UID, or by
// namespace/name when the UID is empty), skipping host-network pods.
func (in *Input) peerPods() []*Pod {
	seen := make(map[string]bool, len(in.Peers)+len(in.Local))
	var out []*Pod
	add := func(list []Pod) {
		for i := range list {
			p := &list[i]
			key := p.UID
			if key == "" {
				key = p.Namespace + "/" + p.Name
			}
			if p.HostNetwork || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, p)
		}
	}
	add(in.Local)
	add(in.Peers)
	return out
}
