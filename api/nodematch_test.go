package api

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
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
		term := CompileNodeTerm(&corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{tc.req}})
		if got := term.Matches(labels, "n1"); got != tc.want {
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
		term := CompileNodeTerm(&corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{tc.req}})
		if got := term.Matches(nil, "n1"); got != tc.want {
			t.Errorf("field %s %s %v: got %v, want %v", tc.req.Key, tc.req.Operator, tc.req.Values, got, tc.want)
		}
	}
}

// nodeCase is a pod's node constraints and whether node n1 with labels
// zone=a, cores=8 must match them.
type nodeCase struct {
	name string
	spec corev1.PodSpec
	want bool
}

func required(terms ...corev1.NodeSelectorTerm) corev1.PodSpec {
	return corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}}
}

func labelTerm(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: reqs}
}

func fieldTerm(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchFields: reqs}
}

func nodeOperatorCases() []nodeCase {
	one := func(name string, r corev1.NodeSelectorRequirement, want bool) nodeCase {
		return nodeCase{name, required(labelTerm(r)), want}
	}
	return []nodeCase{
		one("In holds", expr("zone", corev1.NodeSelectorOpIn, "b", "a"), true),
		one("In misses", expr("zone", corev1.NodeSelectorOpIn, "b"), false),
		one("In on a missing label", expr("gpu", corev1.NodeSelectorOpIn, "yes"), false),
		one("NotIn holds", expr("zone", corev1.NodeSelectorOpNotIn, "b"), true),
		one("NotIn excludes", expr("zone", corev1.NodeSelectorOpNotIn, "b", "a"), false),
		one("NotIn on a missing label", expr("gpu", corev1.NodeSelectorOpNotIn, "yes"), true),
		one("Exists holds", expr("zone", corev1.NodeSelectorOpExists), true),
		one("Exists misses", expr("gpu", corev1.NodeSelectorOpExists), false),
		one("DoesNotExist holds", expr("gpu", corev1.NodeSelectorOpDoesNotExist), true),
		one("DoesNotExist misses", expr("zone", corev1.NodeSelectorOpDoesNotExist), false),
		one("Gt holds", expr("cores", corev1.NodeSelectorOpGt, "4"), true),
		one("Gt is strict", expr("cores", corev1.NodeSelectorOpGt, "8"), false),
		one("Lt holds", expr("cores", corev1.NodeSelectorOpLt, "16"), true),
		one("Lt is strict", expr("cores", corev1.NodeSelectorOpLt, "8"), false),
		one("Gt on a missing label", expr("gpu", corev1.NodeSelectorOpGt, "0"), false),
		one("Lt on a label that is no integer", expr("zone", corev1.NodeSelectorOpLt, "9"), false),
	}
}

// nodeMalformedCases are requirements Kubernetes cannot parse: the term
// holding them matches no node, whatever the node's labels.
func nodeMalformedCases() []nodeCase {
	one := func(name string, r corev1.NodeSelectorRequirement) nodeCase {
		return nodeCase{name, required(labelTerm(r)), false}
	}
	return []nodeCase{
		one("NotIn without values", expr("zone", corev1.NodeSelectorOpNotIn)),
		one("NotIn without values on a missing label", expr("gpu", corev1.NodeSelectorOpNotIn)),
		one("NotIn with empty values", corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpNotIn, Values: []string{}}),
		one("In without values", expr("zone", corev1.NodeSelectorOpIn)),
		one("Exists with values", expr("zone", corev1.NodeSelectorOpExists, "a")),
		one("DoesNotExist with values", expr("gpu", corev1.NodeSelectorOpDoesNotExist, "a")),
		one("Gt without values", expr("cores", corev1.NodeSelectorOpGt)),
		one("Lt with two values", expr("cores", corev1.NodeSelectorOpLt, "9", "10")),
		one("Gt bound no integer", expr("cores", corev1.NodeSelectorOpGt, "four")),
		one("unknown operator", expr("zone", "Like", "a")),
		one("key not a label name", expr("bad key", corev1.NodeSelectorOpDoesNotExist)),
		one("value not a label value", expr("zone", corev1.NodeSelectorOpNotIn, "not a value")),
		{"field NotIn without values", required(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpNotIn))), false},
		{"field In without values", required(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn))), false},
		{"field operator Exists", required(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpExists))), false},
		{"field other than metadata.name", required(fieldTerm(expr("metadata.uid", corev1.NodeSelectorOpNotIn, "x"))), false},
	}
}

func nodeShapeCases() []nodeCase {
	inA, inB := labelTerm(expr("zone", corev1.NodeSelectorOpIn, "a")), labelTerm(expr("zone", corev1.NodeSelectorOpIn, "b"))
	broken := labelTerm(expr("zone", corev1.NodeSelectorOpNotIn))
	withSelector := func(s corev1.PodSpec, sel map[string]string) corev1.PodSpec { s.NodeSelector = sel; return s }
	return []nodeCase{
		{"no constraints", corev1.PodSpec{}, true},
		{"nodeSelector holds", corev1.PodSpec{NodeSelector: map[string]string{"zone": "a", "cores": "8"}}, true},
		{"nodeSelector value differs", corev1.PodSpec{NodeSelector: map[string]string{"zone": "b"}}, false},
		{"nodeSelector label missing", corev1.PodSpec{NodeSelector: map[string]string{"gpu": ""}}, false},
		{"nodeSelector and affinity both hold", withSelector(required(inA), map[string]string{"cores": "8"}), true},
		{"nodeSelector fails, affinity holds", withSelector(required(inA), map[string]string{"zone": "b"}), false},
		{"field In holds", required(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "n1"))), true},
		{"field In misses", required(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "n2"))), false},
		{"field NotIn holds", required(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpNotIn, "n2"))), true},
		{"field NotIn excludes", required(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpNotIn, "n1"))), false},
		{"terms are ORed", required(inB, inA), true},
		{"no term holds", required(inB), false},
		{"a malformed term leaves the others", required(broken, inA), true},
		{"expressions are ANDed", required(labelTerm(expr("zone", corev1.NodeSelectorOpIn, "a"), expr("gpu", corev1.NodeSelectorOpExists))), false},
		{"expressions and fields are ANDed", required(corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{expr("zone", corev1.NodeSelectorOpIn, "a")},
			MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpIn, "n2")}}), false},
		{"empty term matches nothing", required(corev1.NodeSelectorTerm{}), false},
		{"empty term next to one that holds", required(corev1.NodeSelectorTerm{}, inA), true},
		{"required affinity without terms matches nothing", required(), false},
		{"node affinity without required terms", corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}}, true},
	}
}

func TestNodeMatcher(t *testing.T) {
	labels := map[string]string{"zone": "a", "cores": "8"}
	cases := append(append(nodeOperatorCases(), nodeMalformedCases()...), nodeShapeCases()...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := CompileNodeMatcher(&tc.spec).Matches(labels, "n1"); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
