package scheduler

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// nodeTerm is a compiled NodeSelectorTerm: all of its label expressions
// and field expressions must hold. A term with nothing in it, or with an
// expression that does not make sense (an unknown operator, Gt with a value
// that is not an integer), matches no node, as in Kubernetes.
type nodeTerm struct {
	exprs  []requirement
	fields []requirement
	broken bool
}

// requirement is one compiled NodeSelectorRequirement.
type requirement struct {
	key    string
	op     corev1.NodeSelectorOperator
	values []string
	num    int64 // the bound of Gt and Lt
}

// compileTerm compiles a NodeSelectorTerm.
func compileTerm(t *corev1.NodeSelectorTerm) nodeTerm {
	out := nodeTerm{broken: len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0}
	for i := range t.MatchExpressions {
		r, ok := compileRequirement(&t.MatchExpressions[i])
		out.broken = out.broken || !ok
		out.exprs = append(out.exprs, r)
	}
	for i := range t.MatchFields {
		f := &t.MatchFields[i]
		r, ok := compileRequirement(f)
		ok = ok && f.Key == "metadata.name" &&
			(f.Operator == corev1.NodeSelectorOpIn || f.Operator == corev1.NodeSelectorOpNotIn)
		out.broken = out.broken || !ok
		out.fields = append(out.fields, r)
	}
	return out
}

func compileRequirement(e *corev1.NodeSelectorRequirement) (requirement, bool) {
	r := requirement{key: e.Key, op: e.Operator, values: e.Values}
	switch e.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		return r, len(e.Values) > 0
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		return r, len(e.Values) == 0
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(e.Values) != 1 {
			return r, false
		}
		n, err := strconv.ParseInt(e.Values[0], 10, 64)
		r.num = n
		return r, err == nil
	}
	return r, false
}

// matches reports whether a node with these labels and this name satisfies
// the term.
func (t *nodeTerm) matches(labels map[string]string, name string) bool {
	if t.broken {
		return false
	}
	for i := range t.exprs {
		v, ok := labels[t.exprs[i].key]
		if !t.exprs[i].holds(v, ok) {
			return false
		}
	}
	for i := range t.fields {
		if !t.fields[i].holds(name, true) {
			return false
		}
	}
	return true
}

// holds evaluates the requirement against a value (present says whether
// the label exists at all).
func (r *requirement) holds(v string, present bool) bool {
	switch r.op {
	case corev1.NodeSelectorOpIn:
		return present && slices.Contains(r.values, v)
	case corev1.NodeSelectorOpNotIn:
		return !present || !slices.Contains(r.values, v)
	case corev1.NodeSelectorOpExists:
		return present
	case corev1.NodeSelectorOpDoesNotExist:
		return !present
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !present {
			return false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		return (r.op == corev1.NodeSelectorOpGt && n > r.num) || (r.op == corev1.NodeSelectorOpLt && n < r.num)
	}
	return false
}

// nodeMatcher is a pod's compiled spec.nodeSelector and required node
// affinity. Both must hold; the affinity's terms are ORed.
type nodeMatcher struct {
	selector map[string]string
	terms    []nodeTerm
	required bool // the pod has required node affinity (terms may be empty: then nothing matches)
}

// compileNodeMatcher compiles the pod's node constraints; nil when it has
// none.
func compileNodeMatcher(spec *corev1.PodSpec) *nodeMatcher {
	var req *corev1.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		req = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(spec.NodeSelector) == 0 && req == nil {
		return nil
	}
	m := &nodeMatcher{selector: spec.NodeSelector, required: req != nil}
	if req != nil {
		for i := range req.NodeSelectorTerms {
			m.terms = append(m.terms, compileTerm(&req.NodeSelectorTerms[i]))
		}
	}
	return m
}

// matches reports whether the node satisfies the selector and affinity.
func (m *nodeMatcher) matches(labels map[string]string, name string) bool {
	for k, v := range m.selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	if !m.required {
		return true
	}
	for i := range m.terms {
		if m.terms[i].matches(labels, name) {
			return true
		}
	}
	return false
}

// weightedTerm is a compiled PreferredSchedulingTerm.
type weightedTerm struct {
	term   nodeTerm
	weight int64
}

// compilePreferred compiles the pod's preferred node affinity.
func compilePreferred(spec *corev1.PodSpec) []weightedTerm {
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil {
		return nil
	}
	pref := spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	out := make([]weightedTerm, 0, len(pref))
	for i := range pref {
		if pref[i].Weight == 0 {
			continue
		}
		out = append(out, weightedTerm{term: compileTerm(&pref[i].Preference), weight: int64(pref[i].Weight)})
	}
	return out
}
