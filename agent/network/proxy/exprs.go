package proxy

import (
	"encoding/binary"
	"time"

	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"github.com/bramble-edge/bramble/agent/network/nft"
)

// MasqMark is the packet mark bit that asks svc-postrouting to masquerade
// (the same bit kube-proxy uses, so operators read it the same way).
const MasqMark = 0x4000

// Offsets in the IPv4 header and the transport header.
const (
	srcOffset  = 12
	dstOffset  = 16
	portOffset = 2
)

// frontendLookup: meta nfproto ipv4 ip daddr . meta l4proto . th dport
// vmap @map (the three parts in consecutive 32-bit registers).
func frontendLookup(m string) []nft.Expr {
	return nft.Rule(nft.IPv4(), []nft.Expr{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: dstOffset, Len: 4},
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 9},
		&expr.Payload{DestRegister: 10, Base: expr.PayloadBaseTransportHeader, Offset: portOffset, Len: 2},
		&expr.Lookup{SourceRegister: 1, SetName: m, DestRegister: 0, IsDestRegSet: true},
	})
}

// frontendKey is the map key of a frontend: address, protocol and port,
// each padded to a 32-bit word.
func frontendKey(f Frontend, proto uint8) []byte {
	ip := f.IP.As4()
	key := make([]byte, 12)
	copy(key, ip[:])
	key[4] = proto
	binary.BigEndian.PutUint16(key[8:], f.Port)
	return key
}

// setMasqMark: meta mark set mark | MasqMark.
func setMasqMark() []nft.Expr {
	return []nft.Expr{
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binaryutil.NativeEndian.PutUint32(^uint32(MasqMark)), Xor: binaryutil.NativeEndian.PutUint32(MasqMark)},
		&expr.Meta{Key: expr.MetaKeyMARK, SourceRegister: true, Register: 1},
	}
}

// hasMasqMark: meta mark & MasqMark != 0.
func hasMasqMark() []nft.Expr {
	return []nft.Expr{
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binaryutil.NativeEndian.PutUint32(MasqMark), Xor: make([]byte, 4)},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: make([]byte, 4)},
	}
}

// randomIs: numgen random mod n == 0, true once in n.
func randomIs(n int) []nft.Expr {
	return []nft.Expr{
		&expr.Numgen{Register: 1, Modulus: uint32(n), Type: unix.NFT_NG_RANDOM},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: make([]byte, 4)},
	}
}

// inSet: ip saddr @set; updateSet: update @set { ip saddr }.
func inSet(set string) []nft.Expr {
	return []nft.Expr{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: srcOffset, Len: 4},
		&expr.Lookup{SourceRegister: 1, SetName: set},
	}
}

// inPairSet: ip saddr . ip daddr @set (the two addresses in consecutive
// 32-bit registers, as nft lays out a concatenation).
func inPairSet(set string) []nft.Expr {
	return []nft.Expr{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: srcOffset, Len: 4},
		&expr.Payload{DestRegister: 9, Base: expr.PayloadBaseNetworkHeader, Offset: dstOffset, Len: 4},
		&expr.Lookup{SourceRegister: 1, SetName: set},
	}
}

func updateSet(set string, timeout time.Duration) []nft.Expr {
	return []nft.Expr{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: srcOffset, Len: 4},
		&expr.Dynset{SrcRegKey: 1, SetName: set, Operation: unix.NFT_DYNSET_OP_UPDATE, Timeout: timeout},
	}
}

// dnat: dnat ip to IP:PORT.
func dnat(ep Endpoint) []nft.Expr {
	ip := ep.IP.As4()
	return []nft.Expr{
		&expr.Immediate{Register: 1, Data: ip[:]},
		&expr.Immediate{Register: 2, Data: binary.BigEndian.AppendUint16(nil, ep.Port)},
		&expr.NAT{Type: expr.NATTypeDestNAT, Family: unix.NFPROTO_IPV4, RegAddrMin: 1, RegProtoMin: 2, Specified: true},
	}
}

// reject refuses at once: a TCP reset, or ICMP port unreachable.
func reject(proto uint8) []nft.Expr {
	if proto == unix.IPPROTO_TCP {
		return []nft.Expr{&expr.Reject{Type: unix.NFT_REJECT_TCP_RST}}
	}
	return []nft.Expr{&expr.Reject{Type: unix.NFT_REJECT_ICMPX_UNREACH, Code: unix.NFT_REJECT_ICMPX_PORT_UNREACH}}
}

func goTo(chain string) []nft.Expr {
	return []nft.Expr{&expr.Verdict{Kind: expr.VerdictGoto, Chain: chain}}
}
