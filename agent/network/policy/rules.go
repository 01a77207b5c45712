package policy

import (
	"strconv"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ingressChain compiles a policy's ingress rules for the local pods it
// selects: a rule accepts traffic from its peers to its ports.
func (c *compiler) ingressChain(name string, np *networkingv1.NetworkPolicy, sel []int) Chain {
	ch := Chain{Name: name}
	dsts := make([]*Pod, len(sel))
	for i, li := range sel {
		dsts[i] = &c.in.Local[li]
	}
	for ri, r := range np.Spec.Ingress {
		field := "spec.ingress[" + strconv.Itoa(ri) + "].from"
		from, any := c.peerSet(np, r.From, field)
		if !any && from.empty() {
			continue
		}
		src := ""
		if !any {
			src = c.set(from)
		}
		c.portRules(&ch, r.Ports, src, nil, dsts, false)
	}
	return ch
}

// egressChain compiles a policy's egress rules: a rule accepts traffic to its
// peers on its ports.
func (c *compiler) egressChain(name string, np *networkingv1.NetworkPolicy) Chain {
	ch := Chain{Name: name}
	for ri, r := range np.Spec.Egress {
		field := "spec.egress[" + strconv.Itoa(ri) + "].to"
		to, any := c.peerSet(np, r.To, field)
		if !any && to.empty() {
			continue
		}
		var within *addrSet
		if !any {
			within = &to
		}
		c.portRules(&ch, r.Ports, "", within, c.peers, true)
	}
	return ch
}

// peerSet is the addresses a rule's peers stand for; any is true when the
// rule lists no peers (every address).
func (c *compiler) peerSet(np *networkingv1.NetworkPolicy, peers []networkingv1.NetworkPolicyPeer, field string) (s addrSet, any bool) {
	if len(peers) == 0 {
		return s, true
	}
	for _, peer := range peers {
		if peer.IPBlock != nil {
			b, err := ipBlockSet(peer.IPBlock.CIDR, peer.IPBlock.Except)
			if err != nil {
				c.problem(np, field, err)
				continue
			}
			s.union(b)
			continue
		}
		for _, p := range c.peerPods(np, peer, field) {
			for _, ip := range p.IPs {
				s.addAddr(ip)
			}
		}
	}
	return s, false
}

// peerPods gives the pods a podSelector/namespaceSelector peer picks: a pod
// selector alone looks in the policy's namespace, a namespace selector alone
// takes every pod of the namespaces it matches, both together intersect.
func (c *compiler) peerPods(np *networkingv1.NetworkPolicy, peer networkingv1.NetworkPolicyPeer, field string) []*Pod {
	if peer.PodSelector == nil && peer.NamespaceSelector == nil {
		return nil
	}
	podSel, nsSel := labels.Everything(), labels.Selector(nil)
	var ok bool
	if peer.PodSelector != nil {
		if podSel, ok = c.selector(peer.PodSelector, np, field+".podSelector"); !ok {
			return nil
		}
	}
	if peer.NamespaceSelector != nil {
		if nsSel, ok = c.selector(peer.NamespaceSelector, np, field+".namespaceSelector"); !ok {
			return nil
		}
	}
	key := np.Namespace + "\x00" + podSel.String() + "\x00"
	if nsSel != nil {
		key += "ns:" + nsSel.String()
	}
	if pods, ok := c.picked[key]; ok {
		return pods
	}
	out := c.pick(np.Namespace, podSel, nsSel)
	c.picked[key] = out
	return out
}

// pick scans the cluster's pods for a peer's selectors (nsSel nil: the
// policy's own namespace).
func (c *compiler) pick(ns string, podSel, nsSel labels.Selector) []*Pod {
	var out []*Pod
	nsMatch := map[string]bool{}
	for _, p := range c.peers {
		if nsSel == nil && p.Namespace != ns {
			continue
		}
		if nsSel != nil {
			m, seen := nsMatch[p.Namespace]
			if !seen {
				m = nsSel.Matches(labels.Set(c.in.nsLabels(p.Namespace)))
				nsMatch[p.Namespace] = m
			}
			if !m {
				continue
			}
		}
		if podSel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// portRules appends the accepting rules of one ingress or egress rule. src is
// the source set ("" any); within restricts destinations (nil any); dsts are
// the destination pods named ports resolve on (for egress, every pod: then
// the resolution is shared between rules with the same destinations).
func (c *compiler) portRules(ch *Chain, ports []networkingv1.NetworkPolicyPort, src string, within *addrSet, dsts []*Pod, egress bool) {
	dst := ""
	if within != nil && hasNumbered(ports) {
		dst = c.set(*within)
	}
	if len(ports) == 0 {
		ch.Rules = append(ch.Rules, Rule{Src: src, Dst: dst, Verdict: Accept})
		return
	}
	for _, pp := range ports {
		proto := protoNumber(pp.Protocol)
		switch {
		case pp.Port == nil:
			ch.Rules = append(ch.Rules, Rule{Src: src, Dst: dst, Proto: proto, Verdict: Accept})
		case pp.Port.Type == intstr.Int:
			lo := uint16(pp.Port.IntVal)
			hi := lo
			if pp.EndPort != nil && *pp.EndPort > pp.Port.IntVal {
				hi = uint16(*pp.EndPort)
			}
			ch.Rules = append(ch.Rules, Rule{Src: src, Dst: dst, Proto: proto, PortLo: lo, PortHi: hi, Verdict: Accept})
		default:
			c.namedPortRules(ch, pp.Port.StrVal, proto, src, within, dsts, egress)
		}
	}
}

// hasNumbered tells whether a rule matches other than by named ports alone
// (no ports, or a numbered or unset port), so its destination set is needed.
func hasNumbered(ports []networkingv1.NetworkPolicyPort) bool {
	for _, pp := range ports {
		if pp.Port == nil || pp.Port.Type == intstr.Int {
			return true
		}
	}
	return len(ports) == 0
}
