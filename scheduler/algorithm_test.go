package scheduler

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestFitErrorMessages(t *testing.T) {
	tests := []struct {
		err  FitError
		want string
	}{
		{FitError{NumAllNodes: 12, Reasons: map[string]int{"Insufficient memory": 5,
			"node(s) didn't match Pod's node affinity/selector": 7}},
			"0/12 nodes are available: 5 Insufficient memory, 7 node(s) didn't match Pod's node affinity/selector."},
		// Sorted as "count reason" strings, the way kube-scheduler sorts: "12 ..." before "3 ...".
		{FitError{NumAllNodes: 15, Reasons: map[string]int{"node(s) were unschedulable": 3, "Too many pods": 12}},
			"0/15 nodes are available: 12 Too many pods, 3 node(s) were unschedulable."},
		{FitError{NumAllNodes: 3, Reasons: map[string]int{"Insufficient cpu": 3, "Insufficient memory": 3}},
			"0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory."},
		{FitError{NumAllNodes: 0}, "0/0 nodes are available: no nodes available to schedule pods."},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

func TestScheduleReportsFirstFailingFilterPerNode(t *testing.T) {
	nodes := []*corev1.Node{
		// Cordoned and too small: only the first filter (unschedulable) counts.
		makeNode("cordoned", nodeAlloc("100m", "1Gi"), func(n *corev1.Node) { n.Spec.Unschedulable = true }),
		makeNode("small1", nodeAlloc("100m", "1Gi")),
		makeNode("small2", nodeAlloc("100m", "128Mi")),
		makeNode("gpu", nodeTaint("gpu", "true", corev1.TaintEffectNoSchedule)),
		makeNode("arm", nodeArch("arm64"), nodeLabels(corev1.LabelArchStable, "arm64")),
	}
	e := newEnv(t, nodes)
	pod := makePod("default", "p", podReq("1", "512Mi"), func(p *corev1.Pod) {
		p.Spec.NodeSelector = map[string]string{corev1.LabelArchStable: "amd64"}
	})
	for _, n := range nodes[:4] {
		n.Labels[corev1.LabelArchStable] = "amd64"
		e.cache.setNode(n)
	}
	_, err := e.schedule(pod)
	var fe *FitError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a FitError", err)
	}
	want := "0/5 nodes are available: 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector, " +
		"1 node(s) had untolerated taint {gpu: true}, 1 node(s) were unschedulable, 2 Insufficient cpu."
	if got := err.Error(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestScheduleNoNodes(t *testing.T) {
	_, err := newEnv(t, nil).schedule(makePod("default", "p"))
	if err == nil || err.Error() != "0/0 nodes are available: no nodes available to schedule pods." {
		t.Errorf("got %v, want the 0/0 FitError", err)
	}
}

func TestNumFeasibleToFind(t *testing.T) {
	tests := []struct{ percentage, all, want int }{
		{0, 50, 50},
		{0, 99, 99},
		{0, 100, 100},    // 49% of 100 = 49, but at least 100
		{0, 1000, 420},   // 50 - 8 = 42%
		{0, 5000, 500},   // 50 - 40 = 10%
		{0, 6000, 300},   // 50 - 48 = 2% -> 5%
		{0, 20000, 1000}, // 5%
		{10, 500, 100},
		{100, 5000, 5000},
	}
	for _, tc := range tests {
		if got := numFeasibleToFind(tc.percentage, tc.all); got != tc.want {
			t.Errorf("numFeasibleToFind(%d, %d): got %d, want %d", tc.percentage, tc.all, got, tc.want)
		}
	}
}

func TestTiesRotate(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("n1"), makeNode("n2"), makeNode("n3")})
	seen := map[string]int{}
	for i := range 6 {
		// Pods of no group, no requests: every node scores the same.
		node, err := e.schedule(makePod("default", fmt.Sprint("p", i)))
		if err != nil {
			t.Fatal(err)
		}
		seen[node]++
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		if seen[n] != 2 {
			t.Errorf("node %s chosen %d times, want 2 (ties rotate): %v", n, seen[n], seen)
		}
	}
}

// placeGroup schedules and assumes count pods of one ReplicaSet.
func placeGroup(t testing.TB, e *env, count int, mods ...func(*corev1.Pod)) map[string]int {
	t.Helper()
	perNode := map[string]int{}
	for i := range count {
		pod := makePod("default", fmt.Sprintf("web-%d", i), append([]func(*corev1.Pod){owned("web")}, mods...)...)
		node, err := e.schedule(pod)
		if err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		if err := e.cache.assume(newPodInfo(pod), node); err != nil {
			t.Fatal(err)
		}
		perNode[node]++
	}
	return perNode
}

// zonedNodes makes count nodes spread over four zones.
func zonedNodes(count int) []*corev1.Node {
	var nodes []*corev1.Node
	for i := range count {
		nodes = append(nodes, makeNode(fmt.Sprintf("node-%04d", i), nodeLabels(corev1.LabelTopologyZone, fmt.Sprint("z", i%4))))
	}
	return nodes
}

func TestSpreadsGroupEvenlyLookingAtAllNodes(t *testing.T) {
	e := newEnv(t, zonedNodes(200))
	e.algo.percentage = 100
	for name, n := range placeGroup(t, e, 400, podReq("10m", "16Mi")) {
		if n != 2 {
			t.Errorf("node %s got %d pods, want 2", name, n)
		}
	}
}

// With sampling a pod sees only a window of the nodes, so the spread is
// nearly but not perfectly even: the least loaded node may be outside the
// window. The zones, counted cluster-wide, stay balanced.
func TestSpreadsGroupWithSampling(t *testing.T) {
	e := newEnv(t, zonedNodes(1000))
	perNode := placeGroup(t, e, 2000, podReq("10m", "16Mi"))
	perZone, off := map[string]int{}, 0
	for name, n := range perNode {
		if n < 1 || n > 3 {
			t.Errorf("node %s got %d pods, want 1 to 3", name, n)
		}
		if n != 2 {
			off++
		}
		perZone[e.snap.nodes[name].labels[corev1.LabelTopologyZone]] += n
	}
	if len(perNode) != 1000 || off > 20 {
		t.Errorf("got %d nodes used, %d of them without exactly 2 pods; want 1000 and at most 20", len(perNode), off)
	}
	for z, n := range perZone {
		if n < 495 || n > 505 {
			t.Errorf("zone %s got %d pods, want 500 +- 5", z, n)
		}
	}
}

func TestSpreadAcrossZonesBeatsEmptierNode(t *testing.T) {
	zone := corev1.LabelTopologyZone
	e := newEnv(t, []*corev1.Node{makeNode("a1", nodeLabels(zone, "a")), makeNode("a2", nodeLabels(zone, "a")),
		makeNode("b1", nodeLabels(zone, "b"))},
		makePod("default", "w0", owned("web"), podOn("a1")))
	node, err := e.schedule(makePod("default", "w1", owned("web")))
	if err != nil || node != "b1" {
		t.Errorf("got %q, %v; want b1 (the zone without the group's pod)", node, err)
	}
}
