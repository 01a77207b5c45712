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
