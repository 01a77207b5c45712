package policy

import (
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// protoNumber maps a NetworkPolicyPort's protocol (TCP when unset) to its number.
func protoNumber(p *corev1.Protocol) uint8 {
	if p == nil {
		return ProtoTCP
	}
	return protoOf(string(*p))
}

// protoOf maps a protocol name to its number; empty is TCP, as in pod specs.
func protoOf(name string) uint8 {
	switch name {
	case "UDP":
		return ProtoUDP
	case "SCTP":
		return ProtoSCTP
	default:
		return ProtoTCP
	}
}

// namedPortRules resolves a named port on each destination pod (a container
// port of that name and protocol) and appends one rule per port number found,
// matching only the addresses of the pods where the name means that number
// (and that lie within the rule's destinations, when it has any). A name no
// destination pod has allows nothing.
func (c *compiler) namedPortRules(ch *Chain, name string, proto uint8, src string, within *addrSet, dsts []*Pod, egress bool) {
	if !egress { // the destinations are the policy's own pods
		ch.Rules = append(ch.Rules, c.resolveNamed(name, proto, src, within, dsts)...)
		return
	}
	key := name + "\x00" + strconv.Itoa(int(proto)) + "\x00*"
	if within != nil {
		key = name + "\x00" + strconv.Itoa(int(proto)) + "\x00" + within.key()
	}
	rules, ok := c.named[key]
	if !ok {
		rules = c.resolveNamed(name, proto, src, within, dsts)
		c.named[key] = rules
	}
	ch.Rules = append(ch.Rules, rules...)
}

// resolveNamed gives the rules of one named port: one per number it means.
func (c *compiler) resolveNamed(name string, proto uint8, src string, within *addrSet, dsts []*Pod) []Rule {
	byNumber := groupByPort(name, proto, within, dsts)
	numbers := make([]int32, 0, len(byNumber))
	for n := range byNumber {
		numbers = append(numbers, n)
	}
	sort.Slice(numbers, func(i, j int) bool { return numbers[i] < numbers[j] })
	var rules []Rule
	for _, n := range numbers {
		if byNumber[n].empty() {
			continue
		}
		port := uint16(n)
		rules = append(rules, Rule{Src: src, Dst: c.set(*byNumber[n]), Proto: proto,
			PortLo: port, PortHi: port, Verdict: Accept})
	}
	return rules
}

// groupByPort gives, per number a named port means, the addresses of the
// destination pods (within the rule's destinations, if any) where it means it.
func groupByPort(name string, proto uint8, within *addrSet, dsts []*Pod) map[int32]*addrSet {
	byNumber := map[int32]*addrSet{}
	for _, p := range dsts {
		n, ok := namedPort(p, name, proto)
		if !ok {
			continue
		}
		s := byNumber[n]
		if s == nil {
			s = &addrSet{}
			byNumber[n] = s
		}
		for _, ip := range p.IPs {
			if within == nil || within.contains(ip) {
				s.addAddr(ip)
			}
		}
	}
	return byNumber
}

// namedPort finds a pod's container port by name and protocol.
func namedPort(p *Pod, name string, proto uint8) (int32, bool) {
	for _, cp := range p.Ports {
		if cp.Name == name && protoOf(cp.Protocol) == proto && cp.Number > 0 {
			return cp.Number, true
		}
	}
	return 0, false
}

// set names a set of addresses, sharing one set between identical contents.
func (c *compiler) set(s addrSet) string {
	key := s.key()
	if name, ok := c.setIDs[key]; ok {
		return name
	}
	name := setPrefix + strconv.Itoa(len(c.setIDs))
	c.setIDs[key] = name
	spans := s.list()
	out := Set{Name: name, Ranges: make([]Range, len(spans))}
	for i, x := range spans {
		out.Ranges[i] = Range{Lo: numAddr(x.lo), Hi: numAddr(x.hi)}
	}
	c.rs.Sets = append(c.rs.Sets, out)
	return name
}
