package scheduler

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// checkSnapshot compares a snapshot kept up to date incrementally with one
// built from scratch out of the same cache, and each node's account with
// the pods counted on it.
func checkSnapshot(t testing.TB, c *cache, got *snapshot) {
	t.Helper()
	c.updateSnapshot(got)
	want := newSnapshot(c.topoLabels)
	c.updateSnapshot(want)
	if len(got.list) != len(want.list) || len(got.nodes) != len(want.nodes) {
		t.Fatalf("snapshot has %d nodes (%d listed), want %d", len(got.nodes), len(got.list), len(want.nodes))
	}
	for i, n := range got.list {
		if want.list[i].name != n.name || got.nodes[n.name] != n {
			t.Fatalf("list[%d] is %s, want %s", i, n.name, want.list[i].name)
		}
		checkAccount(t, n)
	}
	if !maps.Equal(got.topo, want.topo) {
		t.Fatalf("topology counts: got %v, want %v", got.topo, want.topo)
	}
	if !maps.Equal(got.imageNodes, want.imageNodes) || len(got.platforms) != len(want.platforms) {
		t.Fatalf("image indexes: got %v/%d, want %v/%d", got.imageNodes, len(got.platforms), want.imageNodes, len(want.platforms))
	}
	if len(got.antiNodes) != len(want.antiNodes) {
		t.Fatalf("anti-affinity nodes: got %d, want %d", len(got.antiNodes), len(want.antiNodes))
	}
}

// checkAccount recomputes a node's sums from its pods.
func checkAccount(t testing.TB, n *nodeInfo) {
	t.Helper()
	var req resourceSet
	spread := map[string]int32{}
	ports := 0
	for _, p := range n.pods {
		req.add(p.req)
		ports += len(p.ports)
		if p.spreadKey != "" {
			spread[p.spreadKey]++
		}
	}
	if req != n.requested || !maps.Equal(spread, n.spread) || ports != len(n.ports) {
		t.Fatalf("node %s: account %+v %v %d ports, pods sum to %+v %v %d ports",
			n.name, n.requested, n.spread, len(n.ports), req, spread, ports)
	}
}

func TestAssumeAndForget(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("n1"), makeNode("n2")})
	pod := makePod("default", "p", podReq("1", "1Gi"))
	info := newPodInfo(pod)
	if err := e.cache.assume(info, "n1"); err != nil {
		t.Fatal(err)
	}
	e.cache.updateSnapshot(e.snap)
	if got := e.snap.nodes["n1"].requested.milliCPU; got != 1000 {
		t.Fatalf("assumed: got %dm requested on n1, want 1000m", got)
	}
	if err := e.cache.assume(info, "n2"); err == nil {
		t.Fatal("assuming a counted pod again: got no error")
	}
	if !e.cache.forget(info.key, info.uid) {
		t.Fatal("forget: got false, want the assumption dropped")
	}
	checkSnapshot(t, e.cache, e.snap)
	if got := e.snap.nodes["n1"].requested.milliCPU; got != 0 {
		t.Fatalf("forgotten: got %dm requested, want 0", got)
	}
}

func TestAssumedPodBoundElsewhere(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("n1"), makeNode("n2")})
	pod := makePod("default", "p", podReq("1", "1Gi"))
	info := newPodInfo(pod)
	// Assumed on n1, but the watch shows it bound to n2 (someone else bound it).
	e.cache.assume(info, "n1")
	bound := pod.DeepCopy()
	bound.Spec.NodeName = "n2"
	if !e.cache.addPod(newPodInfo(bound)) {
		t.Error("moved pod: got no freed resources, want n1's freed")
	}
	if node, assumed, _ := e.cache.counted(info.key); node != "n2" || assumed {
		t.Errorf("got %s (assumed %v), want confirmed on n2", node, assumed)
	}
	if e.cache.forget(info.key, info.uid) {
		t.Error("forget after confirmation: got true, want the bound pod kept")
	}
	checkSnapshot(t, e.cache, e.snap)
}

func TestAssumeOnMissingNode(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("n1")})
	e.cache.removeNode("n1")
	if err := e.cache.assume(newPodInfo(makePod("default", "p")), "n1"); err == nil {
		t.Error("got no error, want the node reported gone")
	}
}

func TestPodsBeforeTheirNode(t *testing.T) {
	e := newEnv(t, nil, makePod("default", "early", podReq("1", ""), podOn("late")))
	e.cache.updateSnapshot(e.snap)
	if len(e.snap.list) != 0 {
		t.Fatalf("got %d nodes, want the placeholder hidden", len(e.snap.list))
	}
	e.cache.setNode(makeNode("late"))
	checkSnapshot(t, e.cache, e.snap)
	if got := e.snap.nodes["late"].requested.milliCPU; got != 1000 {
		t.Errorf("got %dm requested, want the early pod counted (1000m)", got)
	}
	e.cache.removeNode("late")
	checkSnapshot(t, e.cache, e.snap)
	e.cache.removePod("default/early")
	if len(e.cache.nodes) != 0 {
		t.Errorf("got %d cache nodes, want the empty placeholder gone", len(e.cache.nodes))
	}
}

func TestNodeChangesThatMatter(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("n1")})
	heartbeat := makeNode("n1", func(n *corev1.Node) { n.Status.Conditions[0].Message = "still fine" })
	if e.cache.setNode(heartbeat) {
		t.Error("condition message change: got a relevant change, want none")
	}
	changes := []func(*corev1.Node){
		nodeLabels("disk", "ssd"), nodeTaint("a", "b", corev1.TaintEffectNoSchedule), nodeAlloc("8", "8Gi"),
		nodeReadyStatus(corev1.ConditionFalse), func(n *corev1.Node) { n.Spec.Unschedulable = true },
		func(n *corev1.Node) { n.Annotations = map[string]string{AnnotationImagePlatforms: `{}`} },
	}
	for i, change := range changes {
		e := newEnv(t, []*corev1.Node{makeNode("n1")})
		if !e.cache.setNode(makeNode("n1", change)) {
			t.Errorf("change %d: got no relevant change, want one", i)
		}
	}
}

func TestSnapshotOrderInterleavesZones(t *testing.T) {
	zone := corev1.LabelTopologyZone
	e := newEnv(t, []*corev1.Node{makeNode("a1", nodeLabels(zone, "a")), makeNode("a2", nodeLabels(zone, "a")),
		makeNode("a3", nodeLabels(zone, "a")), makeNode("b1", nodeLabels(zone, "b")), makeNode("c1", nodeLabels(zone, "c"))})
	e.cache.updateSnapshot(e.snap)
	var got []string
	for _, n := range e.snap.list {
		got = append(got, n.name)
	}
	if want := []string{"a1", "b1", "c1", "a2", "a3"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestBoundEchoSwapsThePod: the watch showing an assumed pod bound where
// it was assumed (the scheduler's own binding) confirms it in place: the
// node keeps its sums, its pods hold the bound version (preemption only
// takes bound pods as victims), and the snapshot gets that version. A
// version that counts differently (its requests changed) is recounted.
func TestBoundEchoSwapsThePod(t *testing.T) {
	zone := corev1.LabelTopologyZone
	e := newEnv(t, []*corev1.Node{makeNode("n1", nodeLabels(zone, "a")), makeNode("n2", nodeLabels(zone, "a"))},
		makePod("default", "other", owned("rs"), podReq("1", ""), podOn("n1")))
	pod := makePod("default", "p", owned("rs"), podReq("500m", "1Gi"),
		podPorts(false, corev1.ContainerPort{ContainerPort: 8080, HostPort: 80}))
	info := newPodInfo(pod)
	if err := e.cache.assume(info, "n1"); err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, e.cache, e.snap)
	bound := pod.DeepCopy()
	bound.Spec.NodeName = "n1"
	bound.Labels = map[string]string{"tier": "front"}
	echo := newPodInfo(bound)
	if e.cache.addPod(echo) {
		t.Error("echo: got freed resources, want none")
	}
	if node, assumed, _ := e.cache.counted(info.key); node != "n1" || assumed {
		t.Errorf("got %s (assumed %v), want confirmed on n1", node, assumed)
	}
	checkSnapshot(t, e.cache, e.snap)
	n1 := e.snap.nodes["n1"]
	if !slices.Contains(n1.pods, echo) || slices.Contains(n1.pods, info) || len(n1.pods) != 2 {
		t.Fatalf("snapshot n1 pods: want the bound version in place of the assumed one")
	}
	if n1.requested.milliCPU != 1500 || len(n1.ports) != 1 || n1.spread[echo.spreadKey] != 2 {
		t.Errorf("n1 account: %+v, %d ports, spread %v", n1.requested, len(n1.ports), n1.spread)
	}
	if got := e.snap.topo[topoKey{label: 0, value: "a", spreadKey: echo.spreadKey}]; got != 2 {
		t.Errorf("zone a counts %d pods of the group, want 2", got)
	}
	// A later version asking for more is recounted.
	bigger := bound.DeepCopy()
	bigger.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
	e.cache.addPod(newPodInfo(bigger))
	checkSnapshot(t, e.cache, e.snap)
	if got := e.snap.nodes["n1"].requested.milliCPU; got != 3000 {
		t.Errorf("after the request grew: %dm requested on n1, want 3000m", got)
	}
}
