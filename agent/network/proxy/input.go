// Package proxy makes Services reachable on one node with nftables, as
// kube-proxy's nftables mode does: ClusterIP, NodePort and LoadBalancer
// ingress addresses are DNATed to the service's endpoints.
//
// Compile turns Services, EndpointSlices and the node's facts into a Plan:
// per service port, the frontends (address, protocol, port) and the
// endpoints chosen for cluster and for external traffic. Render turns a
// Plan into chains of table `inet bramble` (all named "svc-..."), and an
// Applier writes them in one transaction through agent/network/nft.
// Compile and Render are pure; only the Applier touches the kernel.
package proxy

import (
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// Input is everything one compilation reads.
type Input struct {
	// Node is this node's name: endpoints whose nodeName is it are local.
	Node string
	// NodeIPs are the node's addresses NodePorts answer on.
	NodeIPs []netip.Addr
	// ClusterCIDR is the pod network: traffic from outside it to a
	// ClusterIP is masqueraded so replies come back through this node.
	ClusterCIDR netip.Prefix
	Services    []*corev1.Service
	Slices      []*discoveryv1.EndpointSlice
	// Summaries are the relay design's (docs/SERVICES.md): a Service this
	// node holds no EndpointSlice of is reached through the relay ports
	// of the nodes its summary lists; a node the summary lists opens its
	// relay ports to its own endpoints.
	Summaries []*mqtt.ServiceSummary
	// RelayIP is this node's relay address: the first address of its pod
	// CIDR, which its overlay device carries and every other node routes
	// through the overlay, so relayed packets travel as pod-to-pod ones.
	RelayIP netip.Addr
}

// Plan is the compiled form of the node's services.
type Plan struct {
	// ClusterCIDR is Input's: sources outside it are masqueraded.
	ClusterCIDR netip.Prefix
	Ports       []ServicePort
}

// ServicePort is one port of one service with everything its rules need.
type ServicePort struct {
	// ID is "namespace/name:port" (port name, or number when unnamed).
	ID       string
	Protocol uint8 // unix.IPPROTO_TCP, _UDP or _SCTP
	// Internal are the ClusterIP frontends; External the NodePort and
	// LoadBalancer ones.
	Internal []Frontend
	External []Frontend
	// Cluster are the endpoints for traffic to the ClusterIP (only local
	// ones under internalTrafficPolicy Local); Local the ones external
	// traffic uses under externalTrafficPolicy Local (nil otherwise).
	Cluster []Endpoint
	Local   []Endpoint
	// ExternalLocal is externalTrafficPolicy Local: no masquerade, the
	// client's address reaches the pod.
	ExternalLocal bool
	// Affinity is the ClientIP session affinity timeout (0: none).
	Affinity time.Duration
	// Relay is this node's relay frontend (its relay address at the
	// relay port) and Relayed the endpoints behind it: this node's own.
	Relay   []Frontend
	Relayed []Endpoint
}

// Frontend is an address and port a service answers on.
type Frontend struct {
	IP   netip.Addr
	Port uint16
}

// Endpoint is one backend address and port.
type Endpoint struct {
	IP   netip.Addr
	Port uint16
}
