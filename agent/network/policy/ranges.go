package policy

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"sort"
)

// span is an inclusive range of IPv4 addresses as numbers.
type span struct{ lo, hi uint32 }

// addrSet is a set of IPv4 addresses as sorted, disjoint, non-adjacent spans
// (spans added since the last read are merged in by norm). The zero value is
// empty. IPv6 addresses are not held yet (pods are IPv4 only until dual-stack).
type addrSet struct {
	spans []span
	dirty bool
}

func v4num(a netip.Addr) (uint32, bool) {
	if !a.Is4() && !a.Is4In6() {
		return 0, false
	}
	b := a.Unmap().As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), true
}

func numAddr(n uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
}

// prefixSpan gives the span of an IPv4 prefix; ok is false for IPv6.
func prefixSpan(p netip.Prefix) (span, bool) {
	lo, ok := v4num(p.Masked().Addr())
	if !ok {
		return span{}, false
	}
	bits := p.Bits()
	if p.Addr().Is4In6() {
		bits -= 96
	}
	size := uint64(1) << (32 - bits)
	return span{lo, uint32(uint64(lo) + size - 1)}, true
}

// add puts a span into the set.
func (s *addrSet) add(n span) {
	s.spans = append(s.spans, n)
	s.dirty = true
}

// norm sorts the spans and merges overlapping and adjacent ones.
func (s *addrSet) norm() {
	if !s.dirty {
		return
	}
	s.dirty = false
	if len(s.spans) == 0 {
		return
	}
	slices.SortFunc(s.spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	out := s.spans[:1]
	for _, c := range s.spans[1:] {
		last := &out[len(out)-1]
		if last.hi == ^uint32(0) || c.lo <= last.hi+1 {
			if c.hi > last.hi {
				last.hi = c.hi
			}
			continue
		}
		out = append(out, c)
	}
	s.spans = out
}

// addAddr adds one address; IPv6 is ignored.
func (s *addrSet) addAddr(a netip.Addr) {
	if n, ok := v4num(a); ok {
		s.add(span{n, n})
	}
}

// cut removes a span from the set.
func (s *addrSet) cut(c span) {
	s.norm()
	var out []span
	for _, x := range s.spans {
		if c.hi < x.lo || c.lo > x.hi {
			out = append(out, x)
			continue
		}
		if c.lo > x.lo {
			out = append(out, span{x.lo, c.lo - 1})
		}
		if c.hi < x.hi {
			out = append(out, span{c.hi + 1, x.hi})
		}
	}
	s.spans = out
}

// union adds every span of o.
func (s *addrSet) union(o addrSet) {
	s.spans = append(s.spans, o.spans...)
	s.dirty = true
}

func (s *addrSet) contains(a netip.Addr) bool {
	n, ok := v4num(a)
	if !ok {
		return false
	}
	s.norm()
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].hi >= n })
	return i < len(s.spans) && s.spans[i].lo <= n
}

func (s *addrSet) empty() bool { return len(s.spans) == 0 }

// list gives the normalised spans.
func (s *addrSet) list() []span {
	s.norm()
	return s.spans
}

// key is a canonical form of the set, used to share identical sets.
func (s *addrSet) key() string {
	spans := s.list()
	b := make([]byte, 0, 8*len(spans))
	for _, x := range spans {
		b = binary.BigEndian.AppendUint32(b, x.lo)
		b = binary.BigEndian.AppendUint32(b, x.hi)
	}
	return string(b)
}

// ipBlockSet turns an ipBlock (CIDR minus excepts) into a set.
func ipBlockSet(cidr string, except []string) (addrSet, error) {
	var s addrSet
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return s, fmt.Errorf("ipBlock.cidr %q: %w", cidr, err)
	}
	sp, ok := prefixSpan(p)
	if !ok {
		return s, nil
	}
	s.add(sp)
	for _, e := range except {
		ep, err := netip.ParsePrefix(e)
		if err != nil {
			return s, fmt.Errorf("ipBlock.except %q: %w", e, err)
		}
		if esp, ok := prefixSpan(ep); ok {
			s.cut(esp)
		}
	}
	return s, nil
}
