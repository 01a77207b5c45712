package publish

import (
	"sort"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// podChanged moves the scope past a pod change (cur nil: deleted or
// unbound): each policy's picked set learns whether it picks the pod, the
// nodes holding a policy whose answer changed recount, the pod's own nodes
// recompute their policies, and every node concerned settles the pod.
func (s *policyScope) podChanged(ref mqtt.ObjectRef, cur *scopePod, out *fanout) {
	old := s.pods[ref]
	id := s.idOf(ref)
	s.place(ref, old, cur)
	touched := s.recount(id, cur)
	owners := map[string]bool{}
	for _, p := range []*scopePod{old, cur} {
		if p != nil {
			owners[p.node], touched[p.node] = true, true
		}
	}
	candidates := s.policiesIn(ref.Namespace)
	for _, node := range sortedKeys(owners) {
		s.recompute(node, candidates, mqtt.ObjectRef{}, out)
	}
	for _, node := range sortedKeys(touched) {
		if s.settle(node, id, out) || owners[node] {
			s.syncNamespaces(node, out)
		}
	}
	if cur == nil {
		s.release(ref)
	}
}

// recount asks every policy whether it picks the pod now, updates the
// counts of the nodes holding one whose answer changed, and returns the
// nodes holding one that picks it, before or after.
func (s *policyScope) recount(id int32, cur *scopePod) map[string]bool {
	touched := map[string]bool{}
	for pref, p := range s.policies { // order does not matter: counts only
		was, is := s.picked[pref][id], cur != nil && s.picks(p, cur)
		s.setPicked(pref, id, is)
		for node := range s.holders[pref] {
			if was || is {
				touched[node] = true
			}
			if was != is {
				s.nodes[node].count[id] += delta(is)
			}
		}
	}
	return touched
}

func delta(up bool) int32 {
	if up {
		return 1
	}
	return -1
}

func (s *policyScope) policyRefs() map[mqtt.ObjectRef]bool {
	out := make(map[mqtt.ObjectRef]bool, len(s.policies))
	for ref := range s.policies {
		out[ref] = true
	}
	return out
}

func (s *policyScope) setPicked(policy mqtt.ObjectRef, pod int32, in bool) {
	switch {
	case in && s.picked[policy] == nil:
		s.picked[policy] = map[int32]bool{pod: true}
	case in:
		s.picked[policy][pod] = true
	default:
		delete(s.picked[policy], pod)
	}
}

func (s *policyScope) place(ref mqtt.ObjectRef, old, cur *scopePod) {
	if old != nil {
		unindex(s.byNode, old.node, ref)
		unindex(s.byNS, ref.Namespace, ref)
		delete(s.pods, ref)
	}
	if cur != nil {
		s.pods[ref] = cur
		index2(s.byNode, cur.node, cur)
		index2(s.byNS, ref.Namespace, cur)
	}
}

func unindex(m map[string]map[mqtt.ObjectRef]*scopePod, key string, ref mqtt.ObjectRef) {
	delete(m[key], ref)
	if len(m[key]) == 0 {
		delete(m, key)
	}
}

func index2(m map[string]map[mqtt.ObjectRef]*scopePod, key string, p *scopePod) {
	if m[key] == nil {
		m[key] = map[mqtt.ObjectRef]*scopePod{}
	}
	m[key][p.ref] = p
}

// policyChanged moves the scope past a NetworkPolicy change (cur nil:
// deleted): the nodes holding it recount by the difference of what it picks,
// then they and the nodes whose pods it now selects recompute their policies.
func (s *policyScope) policyChanged(ref mqtt.ObjectRef, cur *scopePolicy, out *fanout) {
	nodes := map[string]bool{}
	for node := range s.holders[ref] {
		nodes[node] = true
	}
	if cur == nil {
		for _, node := range sortedKeys(nodes) {
			s.dropPolicy(node, ref, out)
		}
		delete(s.policies, ref)
		delete(s.picked, ref)
		delete(s.byPolicyNS[ref.Namespace], ref)
		return
	}
	s.policies[ref] = cur
	if s.byPolicyNS[ref.Namespace] == nil {
		s.byPolicyNS[ref.Namespace] = map[mqtt.ObjectRef]bool{}
	}
	s.byPolicyNS[ref.Namespace][ref] = true
	s.repick(ref, out)
	for _, pod := range s.byNS[ref.Namespace] {
		if cur.selector.Matches(pod.labels) {
			nodes[pod.node] = true
		}
	}
	for _, node := range sortedKeys(nodes) {
		s.recompute(node, []mqtt.ObjectRef{ref}, ref, out)
	}
}

// repick recomputes what a policy picks and recounts the nodes holding it.
func (s *policyScope) repick(ref mqtt.ObjectRef, out *fanout) {
	p := s.policies[ref]
	now := map[int32]bool{}
	for _, pods := range s.candidates(p) {
		for pr, x := range pods {
			if s.picks(p, x) {
				now[s.ids[pr]] = true
			}
		}
	}
	before := s.picked[ref]
	s.picked[ref] = now
	for _, node := range sortedKeys(s.holders[ref]) {
		ns := s.nodes[node]
		for pr := range before {
			if !now[pr] {
				ns.count[pr]--
				s.settle(node, pr, out)
			}
		}
		for pr := range now {
			if !before[pr] {
				ns.count[pr]++
				s.settle(node, pr, out)
			}
		}
		s.syncNamespaces(node, out)
	}
}

// namespaceChanged moves the scope past a Namespace change: nodes holding
// it get the new version, and policies selecting namespaces by label pick
// again.
func (s *policyScope) namespaceChanged(name string, kv *datastore.KeyValue, out *fanout) {
	if kv == nil {
		delete(s.nsKV, name)
		delete(s.nsLabels, name)
	} else {
		s.nsKV[name] = kv
		s.nsLabels[name] = namespaceLabelsOf(name, kv)
	}
	for _, node := range sortedKeys(s.nodeNames()) {
		if ns := s.nodes[node]; ns.ns[name] {
			typ := mqtt.Modified
			if kv == nil {
				typ = mqtt.Deleted
				delete(ns.ns, name)
			}
			out.add(node, change{typ, namespaceRef(name), kv})
		}
	}
	for _, ref := range sortedRefs(s.policyRefs()) {
		if s.policies[ref].selectsNamespaces() {
			s.repick(ref, out)
		}
	}
	for _, node := range sortedKeys(s.nodeNames()) {
		s.syncNamespaces(node, out) // a namespace created after its pods' peers were sent
	}
}

func (s *policyScope) nodeNames() map[string]bool {
	out := make(map[string]bool, len(s.nodes))
	for node := range s.nodes {
		out[node] = true
	}
	return out
}

func (p *scopePolicy) selectsNamespaces() bool {
	for _, ps := range p.peers {
		if ps.nsSel != nil {
			return true
		}
	}
	return false
}

func namespaceRef(name string) mqtt.ObjectRef {
	return mqtt.ObjectRef{Resource: "namespaces", Name: name}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
