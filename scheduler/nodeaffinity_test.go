package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func requiredNodeAffinity(terms ...corev1.NodeSelectorTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
}

func TestRequirementOperators(t *testing.T) {
	labels := map[string]string{"zone": "a", "cores": "8", "bad": "x"}
	tests := []struct {
		req  corev1.NodeSelectorRequirement
		want bool
	}{
		{expr("zone", corev1.NodeSelectorOpIn, "a", "b"), true},
		{expr("zone", corev1.NodeSelectorOpIn, "b"), false},
		{expr("missing", corev1.NodeSelectorOpIn, "a"), false},
		{expr("zone", corev1.NodeSelectorOpNotIn, "b"), true},
		{expr("zone", corev1.NodeSelectorOpNotIn, "a"), false},
		{expr("missing", corev1.NodeSelectorOpNotIn, "a"), true},
		{expr("zone", corev1.NodeSelectorOpExists), true},
		{expr("missing", corev1.NodeSelectorOpExists), false},
		{expr("zone", corev1.NodeSelectorOpDoesNotExist), false},
		{expr("missing", corev1.NodeSelectorOpDoesNotExist), true},
		{expr("cores", corev1.NodeSelectorOpGt, "4"), true},
		{expr("cores", corev1.NodeSelectorOpGt, "8"), false},
		{expr("cores", corev1.NodeSelectorOpLt, "9"), true},
		{expr("cores", corev1.NodeSelectorOpLt, "8"), false},
		{expr("missing", corev1.NodeSelectorOpGt, "1"), false},
		{expr("bad", corev1.NodeSelectorOpGt, "1"), false},        // label not an integer
		{expr("cores", corev1.NodeSelectorOpGt, "four"), false},   // bound not an integer: term broken
		{expr("cores", corev1.NodeSelectorOpGt, "1", "2"), false}, // Gt takes one value
		{expr("zone", corev1.NodeSelectorOpIn), false},            // In needs values
		{expr("zone", corev1.NodeSelectorOpExists, "a"), false},   // Exists takes none
		{expr("zone", "Like", "a"), false},                        // unknown operator
	}
	for _, tc := range tests {
		term := compileTerm(&corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{tc.req}})
		if got := term.matches(labels, "n1"); got != tc.want {
			t.Errorf("%s %s %v: got %v, want %v", tc.req.Key, tc.req.Operator, tc.req.Values, got, tc.want)
		}
	}
}

func TestMatchFields(t *testing.T) {
	tests := []struct {
		req  corev1.NodeSelectorRequirement
		want bool
	}{
		{expr("metadata.name", corev1.NodeSelectorOpIn, "n1", "n2"), true},
		{expr("metadata.name", corev1.NodeSelectorOpIn, "n2"), false},
		{expr("metadata.name", corev1.NodeSelectorOpNotIn, "n2"), true},
		{expr("metadata.name", corev1.NodeSelectorOpNotIn, "n1"), false},
		{expr("metadata.name", corev1.NodeSelectorOpExists), false}, // fields take In and NotIn only
		{expr("metadata.uid", corev1.NodeSelectorOpIn, "n1"), false},
	}
	for _, tc := range tests {
		term := compileTerm(&corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{tc.req}})
		if got := term.matches(nil, "n1"); got != tc.want {
			t.Errorf("field %s %s %v: got %v, want %v", tc.req.Key, tc.req.Operator, tc.req.Values, got, tc.want)
		}
	}
}

func TestNodeSelectorFilter(t *testing.T) {
	mismatch := []string{"node(s) didn't match Pod's node affinity/selector"}
	inA := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{expr("zone", corev1.NodeSelectorOpIn, "a")}}
	inB := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{expr("zone", corev1.NodeSelectorOpIn, "b")}}
	bothAnded := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		expr("zone", corev1.NodeSelectorOpIn, "a"), expr("disk", corev1.NodeSelectorOpIn, "ssd")}}
	tests := []struct {
		name string
		pod  func(*corev1.Pod)
		want []string
	}{
		{"no constraints", func(*corev1.Pod) {}, nil},
		{"nodeSelector matches", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} }, nil},
		{"nodeSelector mismatch", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "b"} }, mismatch},
		{"nodeSelector missing label", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"gpu": "yes"} }, mismatch},
		{"terms are ORed", requiredNodeAffinity(inB, inA), nil},
		{"expressions are ANDed", requiredNodeAffinity(bothAnded), mismatch},
		{"empty term matches nothing", requiredNodeAffinity(corev1.NodeSelectorTerm{}), mismatch},
		{"no terms match nothing", requiredNodeAffinity(), mismatch},
		{"selector and affinity both needed", func(p *corev1.Pod) {
			requiredNodeAffinity(inA)(p)
			p.Spec.NodeSelector = map[string]string{"zone": "b"}
		}, mismatch},
		{"matchFields name", requiredNodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
			expr("metadata.name", corev1.NodeSelectorOpIn, "n1")}}), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []*corev1.Node{makeNode("n1", nodeLabels("zone", "a"))})
			got := e.filterResult(nodeSelector{}, makePod("default", "p", tc.pod), "n1")
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
