package policy

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// compiler holds one compilation's state: the sets made so far (shared by
// content) and the chains.
type compiler struct {
	in     *Input
	peers  []*Pod
	rs     *Ruleset
	setIDs map[string]string // addrSet key -> set name
	picked map[string][]*Pod // peer selectors -> the pods they pick
	named  map[string][]Rule // destinations, port name, protocol -> resolved rules (egress)
}

// Compile turns the input into a Ruleset. It reads nothing but its input.
func Compile(in *Input) *Ruleset {
	c := &compiler{in: in, peers: in.peerPods(), rs: &Ruleset{}, setIDs: map[string]string{},
		picked: map[string][]*Pod{}, named: map[string][]Rule{}}
	ing := make([][]string, len(in.Local)) // per local pod: ingress policy chains
	eg := make([][]string, len(in.Local))
	for i, np := range sortedPolicies(in.Policies) {
		sel := c.selectLocal(np)
		if len(sel) == 0 {
			continue
		}
		ingress, egress := policyTypes(np)
		if ingress {
			name := ingressPolicy + strconv.Itoa(i)
			c.rs.Chains = append(c.rs.Chains, c.ingressChain(name, np, sel))
			for _, li := range sel {
				ing[li] = append(ing[li], name)
			}
		}
		if egress {
			name := egressPolicy + strconv.Itoa(i)
			c.rs.Chains = append(c.rs.Chains, c.egressChain(name, np))
			for _, li := range sel {
				eg[li] = append(eg[li], name)
			}
		}
	}
	c.rs.Ingress = c.groups(ing, ingressGroup)
	c.rs.Egress = c.groups(eg, egressGroup)
	return c.rs
}

func sortedPolicies(in []*networkingv1.NetworkPolicy) []*networkingv1.NetworkPolicy {
	out := append([]*networkingv1.NetworkPolicy(nil), in...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// policyTypes follows upstream: the listed types, or when none are listed
// Ingress always and Egress only when egress rules are given.
func policyTypes(np *networkingv1.NetworkPolicy) (ingress, egress bool) {
	if len(np.Spec.PolicyTypes) == 0 {
		return true, len(np.Spec.Egress) > 0
	}
	for _, t := range np.Spec.PolicyTypes {
		switch t {
		case networkingv1.PolicyTypeIngress:
			ingress = true
		case networkingv1.PolicyTypeEgress:
			egress = true
		}
	}
	return ingress, egress
}

// selectLocal gives the indexes of the local pods the policy selects.
func (c *compiler) selectLocal(np *networkingv1.NetworkPolicy) []int {
	sel, ok := c.selector(&np.Spec.PodSelector, np, "spec.podSelector")
	if !ok {
		return nil
	}
	var out []int
	for i := range c.in.Local {
		p := &c.in.Local[i]
		if !p.HostNetwork && p.Namespace == np.Namespace && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, i)
		}
	}
	return out
}

// selector converts a label selector; a bad one is a problem and matches nothing.
func (c *compiler) selector(ls *metav1.LabelSelector, np *networkingv1.NetworkPolicy, field string) (labels.Selector, bool) {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		c.problem(np, field, err)
		return nil, false
	}
	return sel, true
}

func (c *compiler) problem(np *networkingv1.NetworkPolicy, field string, err error) {
	c.rs.Problems = append(c.rs.Problems, fmt.Sprintf("networkpolicy %s/%s %s: %v", np.Namespace, np.Name, field, err))
}

// groups makes one chain per distinct list of policy chains (pods selected by
// the same policies share it): jump to each policy, then drop. It returns the
// map entries from the pods' addresses to their group.
func (c *compiler) groups(perPod [][]string, prefix string) []Entry {
	byKey := map[string]string{}
	var entries []Entry
	for i, chains := range perPod {
		if len(chains) == 0 {
			continue
		}
		key := strings.Join(chains, ",")
		name, ok := byKey[key]
		if !ok {
			name = prefix + strconv.Itoa(len(byKey))
			byKey[key] = name
			ch := Chain{Name: name}
			for _, target := range chains {
				ch.Rules = append(ch.Rules, Rule{Verdict: Jump, Target: target})
			}
			ch.Rules = append(ch.Rules, Rule{Verdict: Drop})
			c.rs.Chains = append(c.rs.Chains, ch)
		}
		for _, ip := range c.in.Local[i].IPs {
			if ip.Unmap().Is4() {
				entries = append(entries, Entry{IP: ip.Unmap(), Chain: name})
			}
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].IP.Less(entries[j].IP) })
	return entries
}
