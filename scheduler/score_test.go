package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// scoreAll runs one scorer (and its normalizer) over the named nodes.
func (e *env) scoreAll(s scorer, pod *corev1.Pod, nodes ...string) []int64 {
	e.cache.updateSnapshot(e.snap)
	c := e.prepare(newPodInfo(pod))
	out := make([]int64, len(nodes))
	for i, n := range nodes {
		out[i] = s.score(c, e.snap.nodes[n])
	}
	if nz, ok := s.(normalizer); ok {
		nz.normalize(out)
	}
	return out
}

func TestLeastAllocated(t *testing.T) {
	// n1: 4 CPU 8 GiB, 2 CPU 4 GiB used; n2 empty. Pod asks 1 CPU 2 GiB.
	e := newEnv(t, []*corev1.Node{makeNode("n1"), makeNode("n2")},
		makePod("default", "used", podReq("2", "4Gi"), podOn("n1")))
	got := e.scoreAll(leastAllocated{}, makePod("default", "p", podReq("1", "2Gi")), "n1", "n2")
	if want := []int64{25, 75}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// A pod without requests counts as 100m and 200 MiB.
	got = e.scoreAll(leastAllocated{}, makePod("default", "p"), "n2")
	if want := (int64(3900*100/4000) + int64((8192-200)*100/8192)) / 2; got[0] != want {
		t.Errorf("request-less pod: got %d, want %d", got[0], want)
	}
}

func TestBalancedAllocation(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("n1"), makeNode("n2")},
		makePod("default", "cpuheavy", podReq("3", "1Gi"), podOn("n1")))
	got := e.scoreAll(balancedAllocation{}, makePod("default", "p", podReq("1", "2Gi")), "n1", "n2")
	// n1: cpu 4/4=1, mem 3/8=.375 -> 100*(1-.3125)=68; n2: .25 and .25 -> 100.
	if want := []int64{68, 100}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func owned(uid string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: types.UID("rs-" + uid), Controller: &yes}}
	}
}

func TestSpreadNodes(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("n1"), makeNode("n2"), makeNode("n3")},
		makePod("default", "a1", owned("a"), podOn("n1")), makePod("default", "a2", owned("a"), podOn("n1")),
		makePod("default", "a3", owned("a"), podOn("n2")), makePod("default", "b1", owned("b"), podOn("n3")))
	got := e.scoreAll(spreadNodes{}, makePod("default", "a4", owned("a")), "n1", "n2", "n3")
	if want := []int64{0, 50, 100}; !slices.Equal(got, want) {
		t.Errorf("owned: got %v, want %v", got, want)
	}
	bare := e.scoreAll(spreadNodes{}, makePod("default", "lone"), "n1", "n2", "n3")
	if want := []int64{100, 100, 100}; !slices.Equal(bare, want) {
		t.Errorf("pod of no group: got %v, want %v", bare, want)
	}
}

func TestSpreadKey(t *testing.T) {
	tests := []struct {
		pod  *corev1.Pod
		want string
	}{
		{makePod("default", "p", owned("x")), "owner:rs-x"},
		{makePod("default", "p", podLabels("app", "web")), "app:default/web"},
		{makePod("default", "p", owned("x"), podLabels("app", "web")), "owner:rs-x"},
		{makePod("default", "p"), ""},
	}
	for _, tc := range tests {
		got := ""
		if g, ok := spreadGroup(tc.pod); ok {
			got = g.Value()
		}
		if got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.pod.Labels, got, tc.want)
		}
	}
}

func TestSpreadTopology(t *testing.T) {
	zone := corev1.LabelTopologyZone
	e := newEnv(t, []*corev1.Node{makeNode("a1", nodeLabels(zone, "a")), makeNode("a2", nodeLabels(zone, "a")),
		makeNode("b1", nodeLabels(zone, "b")), makeNode("nozone")},
		makePod("default", "w1", podLabels("app", "web"), podOn("a1")),
		makePod("default", "w2", podLabels("app", "web"), podOn("b1")),
		makePod("default", "w3", podLabels("app", "web"), podOn("b1")),
		makePod("default", "w4", podLabels("app", "web"), podOn("nozone")))
	// Zone a holds 1, zone b 2; the node without a zone is its own domain: 1.
	got := e.scoreAll(spreadTopology{}, makePod("default", "w5", podLabels("app", "web")), "a1", "a2", "b1", "nozone")
	if want := []int64{50, 50, 0, 50}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestImageLocality(t *testing.T) {
	withImage := func(size int64) func(*corev1.Node) {
		return func(n *corev1.Node) {
			n.Status.Images = []corev1.ContainerImage{{Names: []string{"docker.io/library/nginx:1.27"}, SizeBytes: size}}
		}
	}
	e := newEnv(t, []*corev1.Node{makeNode("big", withImage(800*mib)), makeNode("unknown", withImage(0)), makeNode("none")})
	got := e.scoreAll(imageLocality{}, makePod("default", "p", podImage("nginx:1.27")), "big", "unknown", "none")
	// Two of three nodes have it: 800 MiB * 2/3 = 533 MiB -> (533-23)*100/977 = 52;
	// unknown size counts 100 MiB -> 66 MiB -> 4.
	if want := []int64{52, 4, 0}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestPreferredAffinity(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("ssd", nodeLabels("disk", "ssd", "zone", "a")),
		makeNode("hdd", nodeLabels("disk", "hdd", "zone", "a")), makeNode("other")})
	pod := makePod("default", "p", func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 80, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
					expr("disk", corev1.NodeSelectorOpIn, "ssd")}}},
				{Weight: 20, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
					expr("zone", corev1.NodeSelectorOpIn, "a")}}},
			}}}
	})
	got := e.scoreAll(preferredAffinity{}, pod, "ssd", "hdd", "other")
	if want := []int64{100, 20, 0}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestNormalize(t *testing.T) {
	rev := []int64{0, 2, 4}
	normalizeReverse(rev)
	if want := []int64{100, 50, 0}; !slices.Equal(rev, want) {
		t.Errorf("normalizeReverse: got %v, want %v", rev, want)
	}
	zero := []int64{0, 0}
	normalizeToMax(zero)
	if want := []int64{0, 0}; !slices.Equal(zero, want) {
		t.Errorf("normalizeToMax of zeros: got %v, want %v", zero, want)
	}
}
