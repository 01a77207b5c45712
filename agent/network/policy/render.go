package policy

import (
	"encoding/binary"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"github.com/bramble-edge/bramble/agent/network/nft"
)

// Priorities of the two base chains at hook forward: after the overlay's
// `forward` chain (filter). Accept ends only one base chain, so a packet an
// egress rule accepts still meets the destination's ingress rules.
const (
	egressPriority  = 10
	ingressPriority = 11
)

// Render turns a Ruleset into the chains and sets agent/network/nft
// writes: the two base chains at hook forward, each letting established
// and related packets through, then looking the packet's pod address up
// in its verdict map (pod address -> the chain that filters it); the
// Ruleset's regular chains; its address sets as interval sets. A nil
// Ruleset is nothing at all.
func Render(rs *Ruleset) ([]nft.Chain, []nft.Set) {
	if rs == nil {
		return nil, nil
	}
	chains := []nft.Chain{
		baseChain(IngressChain, ingressPriority, IngressMap, dstOffset),
		baseChain(EgressChain, egressPriority, EgressMap, srcOffset),
	}
	for _, ch := range rs.Chains {
		rules := make([][]nft.Expr, len(ch.Rules))
		for i, r := range ch.Rules {
			rules[i] = ruleExprs(r)
		}
		chains = append(chains, nft.Chain{Name: ch.Name, Rules: rules})
	}
	sets := make([]nft.Set, 0, len(rs.Sets)+2)
	for _, s := range rs.Sets {
		ranges := make([]nft.Range, len(s.Ranges))
		for i, r := range s.Ranges {
			ranges[i] = nft.Range{Lo: r.Lo, Hi: r.Hi}
		}
		sets = append(sets, nft.Set{Name: s.Name, Key: nft.KeyAddr, Interval: true, Ranges: ranges})
	}
	return chains, append(sets, verdictMap(IngressMap, rs.Ingress), verdictMap(EgressMap, rs.Egress))
}

// baseChain is a base chain at hook forward that accepts by default: ct
// state established,related accept, then the lookup in its map.
func baseChain(name string, prio nftables.ChainPriority, m string, offset uint32) nft.Chain {
	accept := nftables.ChainPolicyAccept
	return nft.Chain{Name: name, Hook: nftables.ChainHookForward, Type: nftables.ChainTypeFilter,
		Priority: nftables.ChainPriorityRef(prio), Policy: &accept,
		Rules: [][]nft.Expr{establishedExprs(), vmapExprs(m, offset)}}
}

// verdictMap maps each entry's pod address to a jump to its chain.
func verdictMap(name string, entries []Entry) nft.Set {
	m := nft.Set{Name: name, Key: nft.KeyAddr, Elements: make([][]byte, 0, len(entries)), Jumps: make([]string, 0, len(entries))}
	for _, e := range entries {
		ip := e.IP.As4()
		m.Elements, m.Jumps = append(m.Elements, ip[:]), append(m.Jumps, e.Chain)
	}
	return m
}

// Offsets of the IPv4 source and destination addresses in the header.
const (
	srcOffset = 12
	dstOffset = 16
)

// establishedExprs: ct state established,related accept.
func establishedExprs() []expr.Any {
	bits := expr.CtStateBitESTABLISHED | expr.CtStateBitRELATED
	return []expr.Any{
		&expr.Ct{Register: 1, Key: expr.CtKeySTATE},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binaryutil.NativeEndian.PutUint32(bits), Xor: make([]byte, 4)},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: make([]byte, 4)},
		&expr.Verdict{Kind: expr.VerdictAccept},
	}
}

// vmapExprs: meta nfproto ipv4 ip saddr|daddr vmap @map.
func vmapExprs(m string, offset uint32) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV4}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: 4},
		&expr.Lookup{SourceRegister: 1, DestRegister: 0, IsDestRegSet: true, SetName: m},
	}
}

// ruleExprs translates one Rule. Regular chains are reached only through the
// IPv4 maps, so the network header is IPv4's.
func ruleExprs(r Rule) []expr.Any {
	var out []expr.Any
	if r.Src != "" {
		out = append(out, lookup(srcOffset, r.Src)...)
	}
	if r.Dst != "" {
		out = append(out, lookup(dstOffset, r.Dst)...)
	}
	if r.Proto != 0 {
		out = append(out, &expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{r.Proto}})
	}
	if r.PortLo != 0 {
		out = append(out, &expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2})
		if r.PortHi == r.PortLo {
			out = append(out, &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: port(r.PortLo)})
		} else {
			out = append(out, &expr.Range{Op: expr.CmpOpEq, Register: 1, FromData: port(r.PortLo), ToData: port(r.PortHi)})
		}
	}
	return append(out, verdictExpr(r))
}

// lookup: ip saddr|daddr @set (the set is named; the kernel finds it in
// the same transaction).
func lookup(offset uint32, set string) []expr.Any {
	return []expr.Any{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: 4},
		&expr.Lookup{SourceRegister: 1, SetName: set},
	}
}

func verdictExpr(r Rule) expr.Any {
	switch r.Verdict {
	case Accept:
		return &expr.Verdict{Kind: expr.VerdictAccept}
	case Jump:
		return &expr.Verdict{Kind: expr.VerdictJump, Chain: r.Target}
	default:
		return &expr.Verdict{Kind: expr.VerdictDrop}
	}
}

func port(p uint16) []byte {
	return binary.BigEndian.AppendUint16(nil, p)
}
