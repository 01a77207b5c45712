package api

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// NodeMatcher is a pod's spec.nodeSelector and required node affinity,
// compiled: both must hold, the affinity's terms are ORed. The scheduler
// and the DaemonSet controller both place pods by it.
type NodeMatcher struct {
	selector map[string]string
	terms    []NodeTerm
	required bool // required affinity is set (with no terms nothing matches)
}

// CompileNodeMatcher compiles the pod spec's node constraints; nil (which
// matches every node) when it has none.
func CompileNodeMatcher(spec *corev1.PodSpec) *NodeMatcher {
	var req *corev1.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		req = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(spec.NodeSelector) == 0 && req == nil {
		return nil
	}
	m := &NodeMatcher{selector: spec.NodeSelector, required: req != nil}
	if req != nil {
		for i := range req.NodeSelectorTerms {
			m.terms = append(m.terms, CompileNodeTerm(&req.NodeSelectorTerms[i]))
		}
	}
	return m
}

// Matches reports whether a node with these labels and this name
// satisfies the selector and the required affinity.
func (m *NodeMatcher) Matches(labels map[string]string, name string) bool {
	if m == nil {
		return true
	}
	for k, v := range m.selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	if !m.required {
		return true
	}
	for i := range m.terms {
		if m.terms[i].Matches(labels, name) {
			return true
		}
	}
	return false
}

// NodeTerm is a compiled NodeSelectorTerm: all of its label expressions
// and field expressions must hold. As in Kubernetes, a term that is empty
// or does not parse matches no node; other terms of the same selector
// still can. Not parsing: an unknown operator; In or NotIn without values;
// Exists or DoesNotExist with values; Gt or Lt without exactly one integer;
// a key that is not a label name or a value that is not a label value;
// a field other than metadata.name or a field operator other than In and
// NotIn.
type NodeTerm struct {
	exprs  []nodeRequirement
	fields []nodeRequirement
	broken bool
}

// nodeRequirement is one compiled NodeSelectorRequirement.
type nodeRequirement struct {
	key    string
	op     corev1.NodeSelectorOperator
	values []string
	num    int64 // the bound of Gt and Lt
}

// CompileNodeTerm compiles a NodeSelectorTerm.
func CompileNodeTerm(t *corev1.NodeSelectorTerm) NodeTerm {
	out := NodeTerm{broken: len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0}
	for i := range t.MatchExpressions {
		r, ok := compileNodeRequirement(&t.MatchExpressions[i])
		out.broken = out.broken || !ok
		out.exprs = append(out.exprs, r)
	}
	for i := range t.MatchFields {
		f := &t.MatchFields[i]
		ok := f.Key == metav1.ObjectNameField && len(f.Values) > 0 &&
			(f.Operator == corev1.NodeSelectorOpIn || f.Operator == corev1.NodeSelectorOpNotIn)
		out.broken = out.broken || !ok
		out.fields = append(out.fields, nodeRequirement{key: f.Key, op: f.Operator, values: f.Values})
	}
	return out
}

func compileNodeRequirement(e *corev1.NodeSelectorRequirement) (nodeRequirement, bool) {
	r := nodeRequirement{key: e.Key, op: e.Operator, values: e.Values}
	if len(validation.IsQualifiedName(e.Key)) > 0 || slices.ContainsFunc(e.Values, invalidLabelValue) {
		return r, false
	}
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

func invalidLabelValue(v string) bool { return len(validation.IsValidLabelValue(v)) > 0 }

// Matches reports whether a node with these labels and this name satisfies
// the term.
func (t *NodeTerm) Matches(labels map[string]string, name string) bool {
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
func (r *nodeRequirement) holds(v string, present bool) bool {
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
