package policy

import (
	"net/netip"
	"testing"
)

// packet is a new connection's first packet, as the forward hook sees it.
type packet struct {
	src, dst string
	proto    uint8
	port     uint16
}

// allowed runs a packet through a Ruleset the way the kernel runs the two
// base chains: egress by the source's map entry, then ingress by the
// destination's; a pod without an entry is not isolated in that direction.
// It is the reference the compiler's tests judge by; the netns tests check
// the kernel agrees with it.
func allowed(t testing.TB, rs *Ruleset, p packet) bool {
	t.Helper()
	ev := newEvaluator(rs)
	src, dst := netip.MustParseAddr(p.src), netip.MustParseAddr(p.dst)
	if ch, ok := ev.egress[src]; ok && ev.run(t, ch, src, dst, p, 0) != Accept {
		return false
	}
	if ch, ok := ev.ingress[dst]; ok && ev.run(t, ch, src, dst, p, 0) != Accept {
		return false
	}
	return true
}

type evaluator struct {
	sets            map[string]Set
	chains          map[string]Chain
	ingress, egress map[netip.Addr]string
}

func newEvaluator(rs *Ruleset) *evaluator {
	ev := &evaluator{sets: map[string]Set{}, chains: map[string]Chain{},
		ingress: map[netip.Addr]string{}, egress: map[netip.Addr]string{}}
	for _, s := range rs.Sets {
		ev.sets[s.Name] = s
	}
	for _, c := range rs.Chains {
		ev.chains[c.Name] = c
	}
	for _, e := range rs.Ingress {
		ev.ingress[e.IP] = e.Chain
	}
	for _, e := range rs.Egress {
		ev.egress[e.IP] = e.Chain
	}
	return ev
}

// run gives Accept, Drop, or 0 when the packet falls off the chain's end.
func (ev *evaluator) run(t testing.TB, name string, src, dst netip.Addr, p packet, depth int) Verdict {
	ch, ok := ev.chains[name]
	if !ok || depth > 4 {
		t.Fatalf("chain %q missing or jumps too deep", name)
	}
	for _, r := range ch.Rules {
		if !ev.matches(t, r, src, dst, p) {
			continue
		}
		if r.Verdict != Jump {
			return r.Verdict
		}
		if v := ev.run(t, r.Target, src, dst, p, depth+1); v != 0 {
			return v
		}
	}
	return 0
}

func (ev *evaluator) matches(t testing.TB, r Rule, src, dst netip.Addr, p packet) bool {
	if r.Src != "" && !ev.in(t, r.Src, src) || r.Dst != "" && !ev.in(t, r.Dst, dst) {
		return false
	}
	if r.Proto != 0 && r.Proto != p.proto {
		return false
	}
	return r.PortLo == 0 || p.port >= r.PortLo && p.port <= r.PortHi
}

func (ev *evaluator) in(t testing.TB, set string, a netip.Addr) bool {
	s, ok := ev.sets[set]
	if !ok {
		t.Fatalf("set %q missing", set)
	}
	for _, r := range s.Ranges {
		if r.Lo.Compare(a) <= 0 && a.Compare(r.Hi) <= 0 {
			return true
		}
	}
	return false
}
