package proxy

import (
	"github.com/bramble-edge/bramble/agent/network/nft"
)

// relay renders a service port's relay chain ("svc-r-<hash>") and its
// frontend: sources outside the cluster CIDR are refused (relayed packets
// come from pods, or from a node's own overlay address when it
// masqueraded); the rest go to this node's own endpoints, unmasqueraded,
// with the port's affinity (the cluster chain's affinity sets).
func (r *renderer) relay(sp *ServicePort, h string) {
	cidr := r.clusterCIDR()
	if len(sp.Relay) == 0 || cidr == nil {
		return
	}
	name := "svc-r-" + h
	for _, f := range sp.Relay {
		r.frontend(f, sp.Protocol, name)
	}
	guard := nft.Rule(nft.IPv4(), nft.SrcIn(cidr, false), reject(sp.Protocol))
	r.chains = append(r.chains, nft.Chain{Name: name, Rules: append([][]nft.Expr{guard}, r.pick(sp, h, sp.Relayed)...)})
}
