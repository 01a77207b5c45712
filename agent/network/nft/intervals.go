package nft

import (
	"fmt"
	"net/netip"

	"github.com/google/nftables"
)

// Range is an inclusive range of IPv4 addresses, one element of an
// interval set (NetworkPolicy's ipBlock: a CIDR with its excepts cut out).
type Range struct{ Lo, Hi netip.Addr }

// checkRanges: an interval set's ranges must be IPv4, each Lo <= Hi, in
// ascending order without overlaps (the kernel refuses overlapping
// intervals; adjacent ones are fine).
func checkRanges(s Set) error {
	if !s.Interval {
		return fmt.Errorf("nftables: set %s: ranges need an interval set (Interval)", s.Name)
	}
	if s.Key != KeyAddr || s.Jumps != nil || s.Timeout > 0 || s.Elements != nil {
		return fmt.Errorf("nftables: interval set %s: only a static set of addresses (KeyAddr, no Jumps, Timeout or Elements) takes ranges", s.Name)
	}
	for i, r := range s.Ranges {
		if !r.Lo.Is4() || !r.Hi.Is4() || r.Hi.Less(r.Lo) {
			return fmt.Errorf("nftables: interval set %s: range %d (%v-%v) is not an ascending IPv4 range", s.Name, i, r.Lo, r.Hi)
		}
		if i > 0 && !s.Ranges[i-1].Hi.Less(r.Lo) {
			return fmt.Errorf("nftables: interval set %s: range %d (%v-%v) overlaps or precedes range %d (%v-%v)",
				s.Name, i, r.Lo, r.Hi, i-1, s.Ranges[i-1].Lo, s.Ranges[i-1].Hi)
		}
	}
	return nil
}

// rangeElements lays the ranges out as the kernel's interval sets keep
// them: an element at each range's start and an interval-end element just
// past its end (none when the range reaches 255.255.255.255).
func rangeElements(ranges []Range) []nftables.SetElement {
	out := make([]nftables.SetElement, 0, 2*len(ranges))
	for _, r := range ranges {
		lo := r.Lo.As4()
		out = append(out, nftables.SetElement{Key: lo[:]})
		if next := r.Hi.Next(); next.IsValid() {
			end := next.As4()
			out = append(out, nftables.SetElement{Key: end[:], IntervalEnd: true})
		}
	}
	return out
}
