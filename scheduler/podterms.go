package scheduler

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// podTerm is a compiled PodAffinityTerm: the pods it selects (by label and
// namespace) and the topology domain it applies within.
type podTerm struct {
	topologyKey string
	selector    labels.Selector
	// namespaces the term selects pods in: the owner's namespace when the
	// term names none and has no namespaceSelector.
	namespaces    []string
	nsSelector    labels.Selector // nil when the term has no namespaceSelector
	allNamespaces bool            // namespaceSelector {} selects every namespace
}

// compilePodTerms compiles the terms of a pod in namespace ns. A selector
// that does not parse selects no pod.
func compilePodTerms(ns string, terms []corev1.PodAffinityTerm) []podTerm {
	out := make([]podTerm, 0, len(terms))
	for i := range terms {
		t := &terms[i]
		pt := podTerm{topologyKey: t.TopologyKey, namespaces: t.Namespaces,
			selector: selectorOrNothing(t.LabelSelector)}
		if t.NamespaceSelector != nil {
			pt.nsSelector = selectorOrNothing(t.NamespaceSelector)
			pt.allNamespaces = pt.nsSelector.Empty()
		} else if len(t.Namespaces) == 0 {
			pt.namespaces = []string{ns}
		}
		out = append(out, pt)
	}
	return out
}

// selectorOrNothing converts a LabelSelector: nil and malformed selectors
// select nothing, an empty one selects everything.
func selectorOrNothing(s *metav1.LabelSelector) labels.Selector {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// selects reports whether the term picks pod p.
func (t *podTerm) selects(p *podInfo) bool {
	return t.selectsNamespace(p.pod.Namespace) && t.selector.Matches(labels.Set(p.pod.Labels))
}

// selectsNamespace applies the term's namespaces. bramble does not watch
// Namespaces, so a namespaceSelector is evaluated against the one label
// every namespace carries, kubernetes.io/metadata.name (which is how such
// selectors are usually written).
func (t *podTerm) selectsNamespace(ns string) bool {
	if t.allNamespaces || slices.Contains(t.namespaces, ns) {
		return true
	}
	return t.nsSelector != nil && t.nsSelector.Matches(namespaceLabels(ns))
}

// namespaceLabels is the label set of a namespace as far as the scheduler
// knows it: its name under kubernetes.io/metadata.name.
type namespaceLabels string

func (n namespaceLabels) Has(key string) bool {
	return key == corev1.LabelMetadataName
}

func (n namespaceLabels) Get(key string) string {
	if key == corev1.LabelMetadataName {
		return string(n)
	}
	return ""
}

// requiredAffinity returns a pod's required pod affinity terms.
func requiredAffinity(pod *corev1.Pod) []podTerm {
	a := pod.Spec.Affinity
	if a == nil || a.PodAffinity == nil {
		return nil
	}
	return compilePodTerms(pod.Namespace, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
}

// requiredAntiAffinity returns a pod's required pod anti-affinity terms.
func requiredAntiAffinity(pod *corev1.Pod) []podTerm {
	a := pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil
	}
	return compilePodTerms(pod.Namespace, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
}

// hostnameKey is the topology key that means "the node itself".
const hostnameKey = corev1.LabelHostname

// topologyValue is the node's domain for a topology key. The hostname key
// always means the node itself, so a node without the label still forms a
// domain of its own.
func topologyValue(n *nodeStatic, key string) (string, bool) {
	if key == hostnameKey {
		return n.name, true
	}
	v, ok := n.labels[key]
	return v, ok
}
