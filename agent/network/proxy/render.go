package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"sort"

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
	// HairpinSet holds `ip . ip` pairs of every endpoint with itself.
	HairpinSet = "svc-hairpin"
	// FrontendMap maps `ip daddr . l4proto . dport` to a service chain.
	FrontendMap = "svc-frontends"
)

// Rules is a rendered Plan: every chain and set the proxy owns.
type Rules struct {
	Chains []nft.Chain
	Sets   []nft.Set
}

// Render turns a Plan into chains: the base chains look the packet's
// `ip daddr . l4proto . dport` up in one verdict map (O(1) in the number of
// services), which jumps to a service port's cluster chain ("svc-c-<hash>") or external chain
// ("svc-x-<hash>"); those pick an endpoint chain ("svc-e-<hash>-<ip>-<port>")
// at random (or the one the client's affinity set names) and DNATs; only
// services with affinity have endpoint chains ("svc-e-<hash>-<ip>-<port>").
func Render(p *Plan) Rules {
	r := &renderer{plan: p, done: map[string]bool{}, hairpin: map[netip.Addr]bool{}, seen: map[string]bool{}}
	front := nft.Set{Name: FrontendMap, Key: nft.KeyAddrProtoPort, Jumps: []string{}}
	r.front = &front
	for i := range p.Ports {
		r.port(&p.Ports[i])
	}
	lookup := [][]nft.Expr{frontendLookup(FrontendMap)}
	r.chains = append(r.chains,
		baseChain(PreroutingChain, nftables.ChainHookPrerouting, nftables.ChainPriorityNATDest, lookup),
		baseChain(OutputChain, nftables.ChainHookOutput, nftables.ChainPriorityNATDest, lookup),
		baseChain(PostroutingChain, nftables.ChainHookPostrouting, nftables.ChainPriorityNATSource,
			[][]nft.Expr{nft.Rule(nft.IPv4(), inPairSet(HairpinSet), nft.Masquerade()), nft.Rule(hasMasqMark(), nft.Masquerade())}))
	return Rules{Chains: r.chains, Sets: append(r.sets, r.hairpinSet(), front)}
}

func baseChain(name string, hook *nftables.ChainHook, prio *nftables.ChainPriority, rules [][]nft.Expr) nft.Chain {
	return nft.Chain{Name: name, Hook: hook, Type: nftables.ChainTypeNAT, Priority: prio, Rules: rules}
}

type renderer struct {
	plan    *Plan
	chains  []nft.Chain
	sets    []nft.Set
	done    map[string]bool // endpoint chains already made
	hairpin map[netip.Addr]bool
	front   *nft.Set        // the frontend verdict map
	seen    map[string]bool // its keys
}

// port renders one service port's chains and its frontends' entries.
func (r *renderer) port(sp *ServicePort) {
	h := hash(sp.ID)
	cluster, external := "svc-c-"+h, "svc-x-"+h
	for _, f := range sp.Internal {
		r.frontend(f, sp.Protocol, cluster)
	}
	for _, f := range sp.External {
		r.frontend(f, sp.Protocol, external)
	}
	var rules [][]nft.Expr
	if cidr := r.clusterCIDR(); cidr != nil {
		rules = append(rules, nft.Rule(nft.SrcIn(cidr, false), setMasqMark()))
	}
	r.chains = append(r.chains, nft.Chain{Name: cluster, Rules: append(rules, r.pick(sp, h, sp.Cluster)...)})
	if len(sp.External) > 0 {
		r.chains = append(r.chains, nft.Chain{Name: external, Rules: r.external(sp, h, cluster)})
	}
	r.relay(sp, h)
}

// frontend adds the map entry `ip . proto . port : jump chain`; the first
// service port to claim a frontend keeps it (the API allocates each once;
// this guards against bad input only).
func (r *renderer) frontend(f Frontend, proto uint8, chain string) {
	key := frontendKey(f, proto)
	if r.seen[string(key)] {
		return
	}
	r.seen[string(key)] = true
	r.front.Elements = append(r.front.Elements, key)
	r.front.Jumps = append(r.front.Jumps, chain)
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
		seen := map[Endpoint]bool{} // relay targets repeat (weights)
		for _, ep := range eps {
			if !seen[ep] {
				seen[ep] = true
				rules = append(rules, nft.Rule(inSet(r.affinitySet(h, ep)), r.endpoint(sp, h, ep)))
			}
		}
	}
	for i, ep := range eps {
		if i == len(eps)-1 {
			rules = append(rules, r.endpoint(sp, h, ep))
		} else {
			rules = append(rules, nft.Rule(randomIs(len(eps)-i), r.endpoint(sp, h, ep)))
		}
	}
	return rules
}

// endpoint returns what sends a connection to ep: a DNAT, or with
// affinity a goto to ep's chain (made once) that also records the client.
func (r *renderer) endpoint(sp *ServicePort, h string, ep Endpoint) []nft.Expr {
	r.hairpin[ep.IP] = true
	if sp.Affinity == 0 {
		return dnat(ep)
	}
	name := fmt.Sprintf("svc-e-%s-%s-%d", h, ep.IP, ep.Port)
	if !r.done[name] {
		r.done[name] = true
		set := r.affinitySet(h, ep)
		r.sets = append(r.sets, nft.Set{Name: set, Timeout: sp.Affinity})
		r.chains = append(r.chains, nft.Chain{Name: name, Rules: [][]nft.Expr{nft.Rule(updateSet(set, sp.Affinity), dnat(ep))}})
	}
	return goTo(name)
}

// hairpinSet is every endpoint address paired with itself: after DNAT, a
// packet from one of them to itself is a pod reaching itself through a
// service, masqueraded so its reply comes back through the node.
func (r *renderer) hairpinSet() nft.Set {
	s := nft.Set{Name: HairpinSet, Key: nft.KeyAddrPair}
	for ip := range r.hairpin {
		a := ip.As4()
		s.Elements = append(s.Elements, append(a[:], a[:]...))
	}
	sort.Slice(s.Elements, func(i, j int) bool { return bytes.Compare(s.Elements[i], s.Elements[j]) < 0 })
	return s
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
