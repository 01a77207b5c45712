package scheduler

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The spread scorer looks each domain's count up once per cycle
// (cycle.domainCount). A count remembered for one pod's group must never
// be used for the next pod's: here group "a" crowds zone a and group "b"
// zone b (on tainted nodes, so only the empty a1 and b1 are candidates,
// equal in everything else), and the algorithm, which reuses its cycle,
// decides one pod of each group in turn.
func TestSpreadDomainsPerCycle(t *testing.T) {
	zone := corev1.LabelTopologyZone
	taint := nodeTaint("dedicated", "x", corev1.TaintEffectNoSchedule)
	e := newEnv(t, []*corev1.Node{makeNode("a1", nodeLabels(zone, "a")), makeNode("b1", nodeLabels(zone, "b")),
		makeNode("a2", nodeLabels(zone, "a"), taint), makeNode("b2", nodeLabels(zone, "b"), taint)},
		makePod("default", "a-0", podLabels("app", "a"), podOn("a2")),
		makePod("default", "a-1", podLabels("app", "a"), podOn("a2")),
		makePod("default", "b-0", podLabels("app", "b"), podOn("b2")),
		makePod("default", "b-1", podLabels("app", "b"), podOn("b2")))
	for i := range 3 {
		for _, tc := range []struct{ app, want string }{{"a", "b1"}, {"b", "a1"}} {
			got, err := e.schedule(makePod("default", fmt.Sprintf("%s-new-%d", tc.app, i), podLabels("app", tc.app)))
			if err != nil || got != tc.want {
				t.Fatalf("round %d, group %s: got %q, %v, want %s", i, tc.app, got, err, tc.want)
			}
		}
	}
}

// With a topology label of more values than the cycle remembers (one per
// node, as kubernetes.io/hostname), every node's score still counts the
// group's pods in its own domains.
func TestSpreadManyDomains(t *testing.T) {
	zone, host := corev1.LabelTopologyZone, corev1.LabelHostname
	labels := []string{zone, host}
	e := &env{cache: newCache(labels), snap: newSnapshot(labels), algo: newAlgorithm(0, nil)}
	const nodes = 3 * maxDomainMemo
	var names []string
	want := make([]int64, nodes)
	for i := range nodes {
		name := fmt.Sprintf("n%02d", i)
		names = append(names, name)
		e.cache.setNode(makeNode(name, nodeLabels(zone, fmt.Sprint("z", i%3), host, name)))
	}
	perZone := [3]int64{}
	for i := range nodes {
		for j := range i % 4 {
			e.cache.addPod(newPodInfo(makePod("default", fmt.Sprintf("w-%d-%d", i, j), podLabels("app", "web"), podOn(names[i]))))
		}
		perZone[i%3] += int64(i % 4)
	}
	for i := range nodes {
		want[i] = perZone[i%3] + int64(i%4)
	}
	e.cache.updateSnapshot(e.snap)
	c := e.prepare(newPodInfo(makePod("default", "w-new", podLabels("app", "web"))))
	for i, name := range names {
		if got := (spreadTopology{}).score(c, e.snap.nodes[name]); got != want[i] {
			t.Errorf("node %s: got %d, want %d", name, got, want[i])
		}
	}
}
