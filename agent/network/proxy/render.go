package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"

	"github.com/google/nftables"

	"github.com/bramble-edge/bramble/agent/network/nft"
)

// Owner is the service proxy's chain and set prefix in table inet bramble.
var Owner = nft.Owner{"svc-"}

// Base chains: DNAT before routing (prerouting for traffic arriving,
// output for the node's own), masquerade after it.
const (
	PreroutingChain  = "svc-prerouting"
	OutputChain      = "svc-output"
	PostroutingChain = "svc-postrouting"
)

// Rules is a rendered Plan: every chain and set the proxy owns.
type Rules struct {
	Chains []nft.Chain
	Sets   []nft.Set
}

// Render turns a Plan into chains: the base chains jump, per frontend, to
// a service port's cluster chain ("svc-c-<hash>") or external chain
// ("svc-x-<hash>"); those pick an endpoint chain ("svc-e-<hash>-<ip>-<port>")
// at random (or the one the client's affinity set names), which DNATs.
func Render(p *Plan) Rules {
	r := &renderer{plan: p}
	var front [][]nft.Expr
	for i := range p.Ports {
		front = append(front, r.port(&p.Ports[i])...)
	}
	r.chains = append(r.chains,
		baseChain(PreroutingChain, nftables.ChainHookPrerouting, nftables.ChainPriorityNATDest, front),
		baseChain(OutputChain, nftables.ChainHookOutput, nftables.ChainPriorityNATDest, front),
		baseChain(PostroutingChain, nftables.ChainHookPostrouting, nftables.ChainPriorityNATSource,
			[][]nft.Expr{nft.Rule(hasMasqMark(), nft.Masquerade())}))
	return Rules{Chains: r.chains, Sets: r.sets}
}

func baseChain(name string, hook *nftables.ChainHook, prio *nftables.ChainPriority, rules [][]nft.Expr) nft.Chain {
	return nft.Chain{Name: name, Hook: hook, Type: nftables.ChainTypeNAT, Priority: prio, Rules: rules}
}

type renderer struct {
	plan   *Plan
	chains []nft.Chain
	sets   []nft.Set
	done   map[string]bool // endpoint chains already made
}

// port renders one service port's chains and returns its frontend jumps.
func (r *renderer) port(sp *ServicePort) [][]nft.Expr {
	h := hash(sp.ID)
	cluster, external := "svc-c-"+h, "svc-x-"+h
	var front [][]nft.Expr
	for _, f := range sp.Internal {
		front = append(front, nft.Rule(matchFrontend(f, sp.Protocol), jump(cluster)))
	}
	for _, f := range sp.External {
		front = append(front, nft.Rule(matchFrontend(f, sp.Protocol), jump(external)))
	}
	var rules [][]nft.Expr
	if cidr := r.clusterCIDR(); cidr != nil {
		rules = append(rules, nft.Rule(nft.SrcIn(cidr, false), setMasqMark()))
	}
	r.chains = append(r.chains, nft.Chain{Name: cluster, Rules: append(rules, r.pick(sp, h, sp.Cluster)...)})
	if len(sp.External) > 0 {
		r.chains = append(r.chains, nft.Chain{Name: external, Rules: r.external(sp, h, cluster)})
	}
	return front
}

// external: NodePort and LoadBalancer traffic. Cluster policy masquerades
// it and uses the cluster chain; Local keeps the client's address and uses
// only this node's endpoints (pods of this node still get every endpoint).
func (r *renderer) external(sp *ServicePort, h, cluster string) [][]nft.Expr {
	if !sp.ExternalLocal {
		return [][]nft.Expr{setMasqMark(), goTo(cluster)}
	}
	var rules [][]nft.Expr
	if cidr := r.clusterCIDR(); cidr != nil {
		rules = append(rules, nft.Rule(nft.SrcIn(cidr, true), goTo(cluster)))
	}
	return append(rules, r.pick(sp, h, sp.Local)...)
}

// pick chooses among eps: the client's affinity first, then numgen random
// as a cascade (rule i takes 1/(n-i) of what reaches it: even spread).
func (r *renderer) pick(sp *ServicePort, h string, eps []Endpoint) [][]nft.Expr {
	if len(eps) == 0 {
		return [][]nft.Expr{reject(sp.Protocol)}
	}
	var rules [][]nft.Expr
	if sp.Affinity > 0 {
		for _, ep := range eps {
			rules = append(rules, nft.Rule(inSet(r.affinitySet(h, ep)), goTo(r.endpoint(sp, h, ep))))
		}
	}
	for i, ep := range eps {
		if i == len(eps)-1 {
			rules = append(rules, goTo(r.endpoint(sp, h, ep)))
		} else {
			rules = append(rules, nft.Rule(randomIs(len(eps)-i), goTo(r.endpoint(sp, h, ep))))
		}
	}
	return rules
}

// endpoint makes (once) the chain that DNATs to ep, masquerading a pod
// that reaches itself through the service (hairpin).
func (r *renderer) endpoint(sp *ServicePort, h string, ep Endpoint) string {
	name := fmt.Sprintf("svc-e-%s-%s-%d", h, ep.IP, ep.Port)
	if r.done == nil {
		r.done = map[string]bool{}
	}
	if r.done[name] {
		return name
	}
	r.done[name] = true
	rules := [][]nft.Expr{nft.Rule(srcIs(ep.IP, true), setMasqMark())}
	if sp.Affinity > 0 {
		set := r.affinitySet(h, ep)
		r.sets = append(r.sets, nft.Set{Name: set, Timeout: sp.Affinity})
		rules = append(rules, updateSet(set, sp.Affinity))
	}
	r.chains = append(r.chains, nft.Chain{Name: name, Rules: append(rules, dnat(ep))})
	return name
}

func (r *renderer) affinitySet(h string, ep Endpoint) string {
	return fmt.Sprintf("svc-a-%s-%s-%d", h, ep.IP, ep.Port)
}

func (r *renderer) clusterCIDR() *net.IPNet {
	p := r.plan.ClusterCIDR
	if !p.IsValid() || !p.Addr().Is4() {
		return nil
	}
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), 32)}
}

// hash names a service port's chains: short, stable, free of characters
// chain names should not carry.
func hash(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:6])
}
