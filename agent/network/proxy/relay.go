package proxy

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// The relay (docs/SERVICES.md, "Endpoints only where they run"): a node
// holding no EndpointSlice of a Service sends its clients to the relay
// address and port of a node hosting endpoints, picked at random weighted
// by how many endpoints each hosts; a hosting node DNATs its relay
// frontend to its own endpoints without masquerade, so the client's
// address is kept. The relay address is in the hosting node's pod CIDR,
// so the packet crosses the overlay as a pod-to-pod one would.

// summariesByService indexes summaries by "namespace/name".
func summariesByService(sums []*mqtt.ServiceSummary) map[string]*mqtt.ServiceSummary {
	out := make(map[string]*mqtt.ServiceSummary, len(sums))
	for _, s := range sums {
		out[s.Metadata.Namespace+"/"+s.Metadata.Name] = s
	}
	return out
}

// relay adds to out what a summary changes for one service port: its relay
// frontends when this node is a listed host, and relay targets in place of
// endpoints when the node holds no slice of the Service. Under
// internalTrafficPolicy Local only local endpoints count, so no targets.
func relay(in Input, svc *corev1.Service, sp *corev1.ServicePort, sum *mqtt.ServiceSummary, slices []*discoveryv1.EndpointSlice, out *ServicePort) {
	if sum == nil {
		return
	}
	port := sum.RelayFor(sp.Name, string(protocolOr(sp.Protocol)))
	if !validPort(port) {
		return
	}
	if hostOf(sum, in.Node) != nil && in.RelayIP.Is4() {
		out.Relay = []Frontend{{IP: in.RelayIP, Port: uint16(port)}}
		_, out.Relayed = endpoints(in.Node, svc, sp, slices)
	}
	if len(slices) > 0 {
		return
	}
	if p := svc.Spec.InternalTrafficPolicy; p != nil && *p == corev1.ServiceInternalTrafficPolicyLocal {
		return
	}
	out.Cluster = relayTargets(sum, in.Node, uint16(port))
}

func hostOf(sum *mqtt.ServiceSummary, node string) *mqtt.SummaryHost {
	for i := range sum.Hosts {
		if sum.Hosts[i].Node == node {
			return &sum.Hosts[i]
		}
	}
	return nil
}

// relayTargets lists each other hosting node's relay address once per
// endpoint it hosts: the random cascade then weights nodes by their counts.
func relayTargets(sum *mqtt.ServiceSummary, self string, port uint16) []Endpoint {
	var out []Endpoint
	for _, h := range sum.Hosts {
		ip, err := netip.ParseAddr(h.IP)
		if h.Node == self || err != nil || !ip.Is4() {
			continue
		}
		for range min(h.Endpoints, mqtt.MaxHostEndpoints) {
			out = append(out, Endpoint{IP: ip, Port: port})
		}
	}
	return out
}
