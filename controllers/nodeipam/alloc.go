package nodeipam

import (
	"errors"
	"fmt"
	"math/bits"
	"net/netip"
)

// ErrFull says every node range of the cluster CIDR is taken.
var ErrFull = errors.New("no node CIDR left in the cluster CIDR")

// maxRangeBits bounds the bitmap: a /8 cut into /32s would be 2^24 ranges.
const maxRangeBits = 24

// allocator hands out the node ranges (subnets of maskSize bits) of one
// cluster CIDR. It is pure bookkeeping; the controller serialises calls.
type allocator struct {
	cluster  netip.Prefix
	maskSize int
	used     []uint64 // one bit per range
	count    int      // ranges in the cluster CIDR
	inUse    int
	next     int // where the next search starts: ranges are spread, not reused at once
}

// newAllocator checks the flags' values and makes the allocator.
func newAllocator(cluster netip.Prefix, maskSize int) (*allocator, error) {
	if !cluster.IsValid() || !cluster.Addr().Is4() {
		return nil, fmt.Errorf("--cluster-cidr %s: want an IPv4 CIDR like %s", cluster, DefaultClusterCIDR)
	}
	cluster = cluster.Masked()
	if maskSize < cluster.Bits() || maskSize > 30 {
		return nil, fmt.Errorf("--node-cidr-mask-size %d: want between the cluster CIDR's /%d and /30", maskSize, cluster.Bits())
	}
	rangeBits := maskSize - cluster.Bits()
	if rangeBits > maxRangeBits {
		return nil, fmt.Errorf("--node-cidr-mask-size %d: cuts %s into 2^%d ranges, more than 2^%d", maskSize, cluster, rangeBits, maxRangeBits)
	}
	n := 1 << rangeBits
	return &allocator{cluster: cluster, maskSize: maskSize, used: make([]uint64, (n+63)/64), count: n}, nil
}

// prefix is range i.
func (a *allocator) prefix(i int) netip.Prefix {
	base := a.cluster.Addr().As4()
	v := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3])
	v += uint32(i) << (32 - a.maskSize)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), a.maskSize)
}

// index is the range p is, or false when p is not one of ours.
func (a *allocator) index(p netip.Prefix) (int, bool) {
	if !p.IsValid() || p.Bits() != a.maskSize || !p.Addr().Is4() || !a.cluster.Contains(p.Addr()) || p.Masked() != p {
		return 0, false
	}
	off := p.Addr().As4()
	base := a.cluster.Addr().As4()
	diff := (uint32(off[0])<<24 | uint32(off[1])<<16 | uint32(off[2])<<8 | uint32(off[3])) -
		(uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3]))
	return int(diff >> (32 - a.maskSize)), true
}

func (a *allocator) isUsed(i int) bool { return a.used[i/64]&(1<<(i%64)) != 0 }

// occupy marks p taken (a node's stored range, at start); false when p is
// not a range of this cluster CIDR or is taken already.
func (a *allocator) occupy(p netip.Prefix) bool {
	i, ok := a.index(p)
	if !ok || a.isUsed(i) {
		return false
	}
	a.used[i/64] |= 1 << (i % 64)
	a.inUse++
	return true
}

// allocate takes the next free range.
func (a *allocator) allocate() (netip.Prefix, error) {
	if a.inUse >= a.count {
		return netip.Prefix{}, ErrFull
	}
	for n := 0; n < a.count; {
		i := (a.next + n) % a.count
		word := a.used[i/64] >> (i % 64)
		if word&1 == 0 {
			a.next = (i + 1) % a.count
			a.used[i/64] |= 1 << (i % 64)
			a.inUse++
			return a.prefix(i), nil
		}
		n += bits.TrailingZeros64(^word) // skip the taken ranges that follow i
	}
	return netip.Prefix{}, ErrFull
}

// release frees p; freeing a range that is not taken does nothing.
func (a *allocator) release(p netip.Prefix) {
	i, ok := a.index(p)
	if !ok || !a.isUsed(i) {
		return
	}
	a.used[i/64] &^= 1 << (i % 64)
	a.inUse--
}
