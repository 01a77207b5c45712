package policy

import (
	"encoding/binary"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

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
func vmapExprs(m *nftables.Set, offset uint32) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV4}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: 4},
		&expr.Lookup{SourceRegister: 1, DestRegister: 0, IsDestRegSet: true, SetName: m.Name, SetID: m.ID},
	}
}

// ruleExprs translates one Rule. Regular chains are reached only through the
// IPv4 maps, so the network header is IPv4's.
func (b *batch) ruleExprs(r Rule) []expr.Any {
	var out []expr.Any
	if r.Src != "" {
		out = append(out, b.lookup(srcOffset, r.Src)...)
	}
	if r.Dst != "" {
		out = append(out, b.lookup(dstOffset, r.Dst)...)
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

func (b *batch) lookup(offset uint32, set string) []expr.Any {
	s := b.sets[set]
	return []expr.Any{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: 4},
		&expr.Lookup{SourceRegister: 1, SetName: s.Name, SetID: s.ID},
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
