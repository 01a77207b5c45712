package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// affineTo adds a required affinity term selecting app=value within
// topologyKey.
func affineTo(value, topologyKey string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if p.Spec.Affinity.PodAffinity == nil {
			p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{}
		}
		a := p.Spec.Affinity.PodAffinity
		a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{TopologyKey: topologyKey,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}}})
	}
}

func TestPodAffinity(t *testing.T) {
	miss := []string{"node(s) didn't match pod affinity rules"}
	zone := corev1.LabelTopologyZone
	nodes := []*corev1.Node{makeNode("n1", nodeLabels(zone, "a")), makeNode("n2", nodeLabels(zone, "a")),
		makeNode("n3", nodeLabels(zone, "b")), makeNode("nozone")}
	cache := makePod("default", "cache-0", podLabels("app", "cache"), podOn("n1"))
	tests := []struct {
		name     string
		existing []*corev1.Pod
		incoming *corev1.Pod
		want     map[string][]string
	}{
		{"same node", []*corev1.Pod{cache}, makePod("default", "web", affineTo("cache", hostnameKey)),
			map[string][]string{"n1": nil, "n2": miss, "n3": miss}},
		{"same zone", []*corev1.Pod{cache}, makePod("default", "web", affineTo("cache", zone)),
			map[string][]string{"n1": nil, "n2": nil, "n3": miss, "nozone": miss}},
		{"nothing selected, not self-affine", nil, makePod("default", "web", affineTo("cache", zone)),
			map[string][]string{"n1": miss, "n3": miss}},
		{"first of a self-affine group", nil, makePod("default", "cache-1", podLabels("app", "cache"), affineTo("cache", zone)),
			map[string][]string{"n1": nil, "n3": nil, "nozone": miss}},
		{"self-affine group already placed", []*corev1.Pod{cache},
			makePod("default", "cache-1", podLabels("app", "cache"), affineTo("cache", zone)),
			map[string][]string{"n2": nil, "n3": miss}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nodes, tc.existing...)
			for node, want := range tc.want {
				if got := e.filterResult(podAffinity{}, tc.incoming, node); !slices.Equal(got, want) {
					t.Errorf("%s: got %q, want %q", node, got, want)
				}
			}
		})
	}
}
