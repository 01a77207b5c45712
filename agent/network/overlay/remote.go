package overlay

import (
	"crypto/sha256"
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"
)

// Node annotations the overlay publishes for its node (through the
// agent's heartbeat) and reads from the others, like flannel's
// flannel.alpha.coreos.com/backend-data and public-ip.
const (
	// AnnotationVXLANMAC is the MAC address of the node's vxlan device.
	AnnotationVXLANMAC = "bramble.io/vxlan-mac"
	// AnnotationNodeIP is the address other nodes send its pods' traffic
	// to (the VXLAN tunnel end, or the host-gw next hop).
	AnnotationNodeIP = "bramble.io/node-ip"
)

// Remote is what the overlay needs of another node.
type Remote struct {
	Name     string
	PodCIDRs []*net.IPNet // IPv4 ones are routed
	NodeIP   net.IP
	MAC      net.HardwareAddr // the node's vxlan device; nil in host-gw mode
}

// RemoteFromNode reads a Node: its spec.podCIDR(s), its node IP (the
// annotation, else the InternalIP, else the ExternalIP) and vxlan MAC. ok
// is false while the node lacks what routes need (no podCIDR or IP yet);
// a malformed value is an error naming the field.
func RemoteFromNode(n *corev1.Node) (r Remote, ok bool, err error) {
	r.Name = n.Name
	cidrs := n.Spec.PodCIDRs
	if len(cidrs) == 0 && n.Spec.PodCIDR != "" {
		cidrs = []string{n.Spec.PodCIDR}
	}
	for i, c := range cidrs {
		_, ipn, err := net.ParseCIDR(c)
		if err != nil {
			return r, false, fmt.Errorf("node %s: spec.podCIDRs[%d]: %w", n.Name, i, err)
		}
		r.PodCIDRs = append(r.PodCIDRs, ipn)
	}
	ipText := nodeIP(n)
	if ipText != "" {
		if r.NodeIP = net.ParseIP(ipText); r.NodeIP == nil {
			return r, false, fmt.Errorf("node %s: node IP %q is not an IP address", n.Name, ipText)
		}
	}
	if mac := n.Annotations[AnnotationVXLANMAC]; mac != "" {
		if r.MAC, err = net.ParseMAC(mac); err != nil {
			return r, false, fmt.Errorf("node %s: annotation %s: %w", n.Name, AnnotationVXLANMAC, err)
		}
	}
	return r, len(r.PodCIDRs) > 0 && r.NodeIP != nil, nil
}

func nodeIP(n *corev1.Node) string {
	if ip := n.Annotations[AnnotationNodeIP]; ip != "" {
		return ip
	}
	for _, want := range []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP} {
		for _, a := range n.Status.Addresses {
			if a.Type == want {
				return a.Address
			}
		}
	}
	return ""
}

// MACFor is the vxlan device's MAC for a node: derived from its name, so
// it stays the same across reboots (other nodes' FDB entries stay right
// while this one runs without the server), locally administered, unicast.
func MACFor(node string) net.HardwareAddr {
	sum := sha256.Sum256([]byte("bramble-vxlan/" + node))
	mac := net.HardwareAddr(sum[:6])
	mac[0] = mac[0]&0xfe | 0x02
	return mac
}

// gateway is the first address of a pod CIDR (its .0), which the node
// owning it puts on its vxlan device: the next hop remote nodes route
// that CIDR to, as flannel does.
func gateway(n *net.IPNet) net.IP {
	return n.IP.Mask(n.Mask)
}
