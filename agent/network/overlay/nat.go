package overlay

import (
	"fmt"
	"net"

	"github.com/google/nftables"

	"github.com/bramble-edge/bramble/agent/network/nft"
)

// The overlay's chains in table inet bramble (agent/network/nft).
const (
	NATChain     = "nat-postrouting"
	ForwardChain = "forward"
)

// Owner is the overlay's share of table inet bramble.
var Owner = nft.Owner{NATChain, ForwardChain}

// multicast is 224.0.0.0/4: never masqueraded (as flannel).
var multicast = &net.IPNet{IP: net.IPv4(224, 0, 0, 0).To4(), Mask: net.CIDRMask(4, 32)}

// Rules are the overlay's nftables chains for the cluster CIDR:
//
//   - nat-postrouting (nat, postrouting, srcnat): traffic from a pod to
//     another pod is left alone (pod-to-pod is never NATed); from a pod to
//     anything outside the cluster CIDR, leaving by an interface other
//     than the pod bridge and the vxlan device, is masqueraded to the
//     node's address.
//   - forward (filter, forward, filter-10, policy accept): packets from or
//     to the cluster CIDR are accepted. An accept ends only this chain: a
//     drop in another table (a host firewall) or in NetworkPolicy's chains
//     still drops, which is what policy needs.
func Rules(clusterCIDR *net.IPNet, bridge, vxlanDev string) ([]nft.Chain, error) {
	if err := nft.CheckIPv4(clusterCIDR); err != nil {
		return nil, fmt.Errorf("cluster CIDR: %w", err)
	}
	ipv4 := nft.IPv4()
	nat := nft.Chain{Name: NATChain, Hook: nftables.ChainHookPostrouting, Type: nftables.ChainTypeNAT,
		Priority: nftables.ChainPriorityNATSource, Rules: [][]nft.Expr{
			nft.Rule(ipv4, nft.SrcIn(clusterCIDR, true), nft.DstIn(clusterCIDR, true), nft.Return()),
			nft.Rule(ipv4, nft.SrcIn(clusterCIDR, true), nft.DstIn(multicast, true), nft.Return()),
			nft.Rule(ipv4, nft.SrcIn(clusterCIDR, true), nft.OutIface(bridge, false),
				nft.OutIface(vxlanDev, false), nft.Masquerade()),
		}}
	fwd := nft.Chain{Name: ForwardChain, Hook: nftables.ChainHookForward, Type: nftables.ChainTypeFilter,
		Priority: nftables.ChainPriorityRef(*nftables.ChainPriorityFilter - 10), Rules: [][]nft.Expr{
			nft.Rule(ipv4, nft.SrcIn(clusterCIDR, true), nft.Accept()),
			nft.Rule(ipv4, nft.DstIn(clusterCIDR, true), nft.Accept()),
		}}
	return []nft.Chain{nat, fwd}, nil
}

// ApplyRules writes the overlay's chains through conn in one transaction.
func ApplyRules(conn *nft.Conn, clusterCIDR *net.IPNet, bridge, vxlanDev string) error {
	chains, err := Rules(clusterCIDR, bridge, vxlanDev)
	if err != nil {
		return err
	}
	return conn.Replace(Owner, chains)
}
