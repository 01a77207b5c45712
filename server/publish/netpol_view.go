package publish

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// apply moves the scope past one stored change and returns what it changes
// in each node's policy view.
func (s *policyScope) apply(ref mqtt.ObjectRef, ev *datastore.Event) (*fanout, error) {
	out := &fanout{}
	var kv *datastore.KeyValue
	if ev.Type != datastore.EventDelete {
		kv = ev.KV
	}
	switch ref.Resource {
	case mqtt.ResourcePods:
		cur, err := s.boundPod(ref, kv)
		if err != nil {
			return nil, err
		}
		s.podChanged(ref, cur, out)
	case "networkpolicies":
		var cur *scopePolicy
		if kv != nil {
			var err error
			if cur, err = scopePolicyOf(ref, kv); err != nil {
				return nil, err
			}
		}
		s.policyChanged(ref, cur, out)
	case "namespaces":
		s.namespaceChanged(ref.Name, kv, out)
	}
	return out, nil
}

// policyPod is the part of a stored pod the policy view reads: decoding
// only it costs a fraction of a whole pod.
type policyPod struct {
	Metadata struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		UID       types.UID         `json:"uid"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		NodeName    string `json:"nodeName"`
		HostNetwork bool   `json:"hostNetwork"`
		Containers  []struct {
			Ports []corev1.ContainerPort `json:"ports"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		PodIP  string         `json:"podIP"`
		PodIPs []corev1.PodIP `json:"podIPs"`
	} `json:"status"`
}

// boundPod decodes a stored pod; nil when deleted or not bound.
func (s *policyScope) boundPod(ref mqtt.ObjectRef, kv *datastore.KeyValue) (*scopePod, error) {
	if kv == nil {
		return nil, nil
	}
	var pp policyPod
	if err := json.Unmarshal(kv.Value, &pp); err != nil {
		return nil, fmt.Errorf("stored pod %s: %w", kv.Key, err)
	}
	if pp.Spec.NodeName == "" {
		return nil, nil
	}
	m := &pp.Metadata
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, Labels: m.Labels},
		Spec:   corev1.PodSpec{NodeName: pp.Spec.NodeName, HostNetwork: pp.Spec.HostNetwork},
		Status: corev1.PodStatus{PodIP: pp.Status.PodIP, PodIPs: pp.Status.PodIPs}}
	for _, c := range pp.Spec.Containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Ports: c.Ports})
	}
	return s.scopePodOf(ref, pod, kv.ModRevision)
}

// recompute re-evaluates whether a node holds each of the candidate
// policies (those a change may concern: a pod's namespace's, or the policy
// that changed): one gained counts its picked pods up, one lost counts them
// down, and changed (a policy that changed) is sent again if kept.
func (s *policyScope) recompute(node string, candidates []mqtt.ObjectRef, changed mqtt.ObjectRef, out *fanout) {
	ns := s.node(node)
	for _, ref := range candidates {
		p, holds := s.policies[ref], false
		for _, pod := range s.byNode[node] {
			if p != nil && pod.ref.Namespace == ref.Namespace && p.selector.Matches(pod.labels) {
				holds = true
				break
			}
		}
		switch {
		case holds && !ns.policies[ref]:
			s.addPolicy(node, ref, out)
		case holds && ref == changed:
			out.add(node, change{mqtt.Modified, ref, p.kv})
		case !holds && ns.policies[ref]:
			s.dropPolicy(node, ref, out)
		}
	}
	s.syncNamespaces(node, out)
	if len(ns.policies) == 0 && len(ns.sent) == 0 && len(ns.ns) == 0 {
		delete(s.nodes, node)
	}
}

// policiesIn lists the policies of a namespace.
func (s *policyScope) policiesIn(namespace string) []mqtt.ObjectRef {
	refs := map[mqtt.ObjectRef]bool{}
	for ref := range s.byPolicyNS[namespace] {
		refs[ref] = true
	}
	return sortedRefs(refs)
}

func (s *policyScope) addPolicy(node string, ref mqtt.ObjectRef, out *fanout) {
	ns := s.nodes[node]
	ns.policies[ref] = true
	if s.holders[ref] == nil {
		s.holders[ref] = map[string]bool{}
	}
	s.holders[ref][node] = true
	out.add(node, change{mqtt.Added, ref, s.policies[ref].kv})
	for pr := range s.picked[ref] {
		ns.count[pr]++
		s.settle(node, pr, out)
	}
}

func (s *policyScope) dropPolicy(node string, ref mqtt.ObjectRef, out *fanout) {
	ns := s.nodes[node]
	delete(ns.policies, ref)
	delete(s.holders[ref], node)
	if len(s.holders[ref]) == 0 {
		delete(s.holders, ref)
	}
	out.add(node, change{mqtt.Deleted, ref, nil})
	for pr := range s.picked[ref] {
		ns.count[pr]--
		s.settle(node, pr, out)
	}
	s.syncNamespaces(node, out)
}

func (s *policyScope) node(name string) *nodeScope {
	ns := s.nodes[name]
	if ns == nil {
		ns = &nodeScope{policies: map[mqtt.ObjectRef]bool{}, count: map[int32]int32{},
			sent: map[int32]uint64{}, nsUse: map[string]int{}, ns: map[string]bool{}}
		s.nodes[name] = ns
	}
	return ns
}

// candidates are the pods, by namespace, a policy may pick: its own
// namespace, those its namespace selectors match, all for a named port
// resolved on any pod.
func (s *policyScope) candidates(p *scopePolicy) map[string]map[mqtt.ObjectRef]*scopePod {
	if len(p.named) > 0 {
		return s.byNS
	}
	out := map[string]map[mqtt.ObjectRef]*scopePod{}
	for _, ps := range p.peers {
		if ps.nsSel == nil {
			out[ps.ns] = s.byNS[ps.ns]
			continue
		}
		for name, pods := range s.byNS {
			if ps.nsSel.Matches(s.namespaceLabels(name)) {
				out[name] = pods
			}
		}
	}
	return out
}
