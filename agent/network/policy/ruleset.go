package policy

import "net/netip"

// Names of the objects the policy part owns in table `inet bramble`. Every
// chain and set it makes starts with "policy-"; it never touches others.
const (
	Prefix        = "policy-"
	IngressChain  = "policy-ingress" // base chain, hook forward
	EgressChain   = "policy-egress"  // base chain, hook forward
	IngressMap    = "policy-ingress-pods"
	EgressMap     = "policy-egress-pods"
	ingressPolicy = "policy-in-"  // + policy index: that policy's ingress rules
	egressPolicy  = "policy-out-" // + policy index
	ingressGroup  = "policy-ig-"  // + group index: the policies of a group of pods, then drop
	egressGroup   = "policy-eg-"
	setPrefix     = "policy-s"
)

// Verdict is what a rule does when it matches.
type Verdict uint8

const (
	Accept Verdict = iota + 1
	Drop
	Jump
)

// Protocol numbers of the transport protocols NetworkPolicy names.
const (
	ProtoTCP  uint8 = 6
	ProtoUDP  uint8 = 17
	ProtoSCTP uint8 = 132
)

// Rule matches a packet on its addresses (by named set), its transport
// protocol and destination port range; an empty field matches anything.
type Rule struct {
	Src, Dst       string // set names
	Proto          uint8
	PortLo, PortHi uint16 // PortLo 0: any port (Proto must be set otherwise)
	Verdict        Verdict
	Target         string // chain for Jump
}

// Chain is a regular chain of rules; a packet falling off its end returns to
// the caller.
type Chain struct {
	Name  string
	Rules []Rule
}

// Range is an inclusive range of addresses.
type Range struct{ Lo, Hi netip.Addr }

// Set is a named interval set of IPv4 addresses.
type Set struct {
	Name   string
	Ranges []Range
}

// Entry maps a local pod's address to the chain that filters it.
type Entry struct {
	IP    netip.Addr
	Chain string
}

// Ruleset is the compiled form of the node's policies. Pods with no entry in
// Ingress (Egress) are not isolated in that direction and are allowed.
type Ruleset struct {
	Sets    []Set
	Chains  []Chain
	Ingress []Entry
	Egress  []Entry
	// Problems lists what could not be compiled (bad selectors, CIDRs); the
	// part concerned matches nothing, which fails closed.
	Problems []string
}
