package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// antiTo adds a required anti-affinity term selecting app=value within
// topologyKey.
func antiTo(value, topologyKey string, namespaces ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if p.Spec.Affinity.PodAntiAffinity == nil {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a := p.Spec.Affinity.PodAntiAffinity
		a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{TopologyKey: topologyKey, Namespaces: namespaces,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}}})
	}
}

func TestAntiAffinity(t *testing.T) {
	own := []string{"node(s) didn't match pod anti-affinity rules"}
	existing := []string{"node(s) didn't satisfy existing pods anti-affinity rules"}
	zone := corev1.LabelTopologyZone
	nodes := []*corev1.Node{makeNode("n1", nodeLabels(zone, "a")), makeNode("n2", nodeLabels(zone, "a")),
		makeNode("n3", nodeLabels(zone, "b"))}
	tests := []struct {
		name     string
		existing *corev1.Pod // on n1
		incoming *corev1.Pod
		want     map[string][]string
	}{
		{"own term, same node", makePod("default", "db-0", podLabels("app", "db")),
			makePod("default", "db-1", podLabels("app", "db"), antiTo("db", hostnameKey)),
			map[string][]string{"n1": own, "n2": nil, "n3": nil}},
		{"own term, other namespace not selected", makePod("other", "db-0", podLabels("app", "db")),
			makePod("default", "db-1", podLabels("app", "db"), antiTo("db", hostnameKey)),
			map[string][]string{"n1": nil}},
		{"own term naming the namespace", makePod("other", "db-0", podLabels("app", "db")),
			makePod("default", "db-1", antiTo("db", hostnameKey, "other")),
			map[string][]string{"n1": own}},
		{"own term, zone", makePod("default", "db-0", podLabels("app", "db")),
			makePod("default", "db-1", antiTo("db", zone)),
			map[string][]string{"n1": own, "n2": own, "n3": nil}},
		{"existing pod's term (symmetry)", makePod("default", "db-0", antiTo("web", hostnameKey)),
			makePod("default", "web-1", podLabels("app", "web")),
			map[string][]string{"n1": existing, "n2": nil}},
		{"existing pod's zone term", makePod("default", "db-0", antiTo("web", zone)),
			makePod("default", "web-1", podLabels("app", "web")),
			map[string][]string{"n1": existing, "n2": existing, "n3": nil}},
		{"labels do not match", makePod("default", "db-0", podLabels("app", "db")),
			makePod("default", "web-1", antiTo("cache", hostnameKey)),
			map[string][]string{"n1": nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.existing.Spec.NodeName = "n1"
			e := newEnv(t, nodes, tc.existing)
			for node, want := range tc.want {
				if got := e.filterResult(antiAffinity{}, tc.incoming, node); !slices.Equal(got, want) {
					t.Errorf("%s: got %q, want %q", node, got, want)
				}
			}
		})
	}
}

func TestNamespaceSelector(t *testing.T) {
	term := corev1.PodAffinityTerm{TopologyKey: hostnameKey,
		LabelSelector: &metav1.LabelSelector{},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
			corev1.LabelMetadataName: "prod"}}}
	compiled := compilePodTerms("default", []corev1.PodAffinityTerm{term})[0]
	if !compiled.selectsNamespace("prod") || compiled.selectsNamespace("default") {
		t.Errorf("namespaceSelector by name: got prod=%v default=%v, want true, false",
			compiled.selectsNamespace("prod"), compiled.selectsNamespace("default"))
	}
	term.NamespaceSelector = &metav1.LabelSelector{}
	all := compilePodTerms("default", []corev1.PodAffinityTerm{term})[0]
	if !all.selectsNamespace("anything") {
		t.Errorf("empty namespaceSelector: got no match, want every namespace")
	}
	term.LabelSelector = nil
	none := compilePodTerms("default", []corev1.PodAffinityTerm{term})[0]
	if none.selects(newPodInfo(makePod("x", "y"))) {
		t.Errorf("nil labelSelector: got a match, want none")
	}
}
