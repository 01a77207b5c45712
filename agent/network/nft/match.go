package nft

import (
	"fmt"
	"net"

	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// Expression builders for the matches bramble's rules need, so that each
// owner writes rules as short lists (Rule(IPv4(), SrcIn(cidr), Accept())).
// Every match loads into register 1, which the next match overwrites.

// Rule joins its parts into one rule's expressions.
func Rule(parts ...[]Expr) []Expr {
	var out []Expr
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// IPv4 matches IPv4 packets (an inet table sees both families).
func IPv4() []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV4}},
	}
}

// SrcIn matches an IPv4 source address inside (in) or outside (!in) n.
func SrcIn(n *net.IPNet, in bool) []expr.Any { return addrIn(12, n, in) }

// DstIn matches an IPv4 destination address inside or outside n.
func DstIn(n *net.IPNet, in bool) []expr.Any { return addrIn(16, n, in) }

func addrIn(offset uint32, n *net.IPNet, in bool) []expr.Any {
	op := expr.CmpOpEq
	if !in {
		op = expr.CmpOpNeq
	}
	mask := net.IP(n.Mask).To4()
	if len(n.Mask) == net.IPv6len {
		mask = net.IP(n.Mask[12:]).To4()
	}
	return []expr.Any{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: 4},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: mask, Xor: []byte{0, 0, 0, 0}},
		&expr.Cmp{Op: op, Register: 1, Data: n.IP.Mask(n.Mask).To4()},
	}
}

// OutIface matches the output interface's name being (is) or not being
// (!is) name.
func OutIface(name string, is bool) []expr.Any { return iface(expr.MetaKeyOIFNAME, name, is) }

// InIface matches the input interface's name.
func InIface(name string, is bool) []expr.Any { return iface(expr.MetaKeyIIFNAME, name, is) }

func iface(key expr.MetaKey, name string, is bool) []expr.Any {
	op := expr.CmpOpEq
	if !is {
		op = expr.CmpOpNeq
	}
	return []expr.Any{
		&expr.Meta{Key: key, Register: 1},
		&expr.Cmp{Op: op, Register: 1, Data: ifname(name)},
	}
}

// ifname is name as the kernel compares it: NUL-padded to IFNAMSIZ.
func ifname(name string) []byte {
	b := make([]byte, unix.IFNAMSIZ)
	copy(b, name)
	return b
}

// Accept, Return and Masquerade end a rule.
func Accept() []expr.Any { return []expr.Any{&expr.Verdict{Kind: expr.VerdictAccept}} }

// Return goes back to the calling chain (or the base chain's policy).
func Return() []expr.Any { return []expr.Any{&expr.Verdict{Kind: expr.VerdictReturn}} }

// Masquerade rewrites the source to the output interface's address, with
// fully random source ports (as flannel does, avoiding port clashes
// between pods).
func Masquerade() []expr.Any { return []expr.Any{&expr.Masq{FullyRandom: true}} }

// CheckIPv4 says whether n is an IPv4 network the matches above can take.
func CheckIPv4(n *net.IPNet) error {
	if n == nil || n.IP.To4() == nil {
		return fmt.Errorf("%v is not an IPv4 network", n)
	}
	return nil
}

// Expr is one nftables expression.
type Expr = expr.Any
