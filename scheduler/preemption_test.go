package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// preemptOn schedules pod (which must not fit) and returns the preemption
// found, with the victims' names sorted.
func (e *env) preemptOn(t *testing.T, pod *corev1.Pod, protected Protected) (string, []string, bool, bool) {
	t.Helper()
	p := newPodInfo(pod)
	e.cache.updateSnapshot(e.snap)
	if node, err := e.algo.schedule(p, e.snap); err == nil {
		t.Fatalf("pod fits on %s; the case needs one that does not", node)
	}
	best, ok, wait := e.algo.preempt(p, e.snap, protected)
	var names []string
	for _, v := range best.victims {
		names = append(names, v.pod.Name)
	}
	slices.Sort(names)
	return best.node, names, ok, wait
}

func TestPreemptionPicksFewestLeastImportantVictims(t *testing.T) {
	bound := func(name, node, cpu string, prio int32, mods ...func(*corev1.Pod)) *corev1.Pod {
		return makePod("default", name, append([]func(*corev1.Pod){podOn(node), podReq(cpu, ""), podPriority(prio)}, mods...)...)
	}
	deleting := func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} }
	byName := func(names ...string) Protected {
		return func(p *corev1.Pod) bool { return slices.Contains(names, p.Name) }
	}
	small := []*corev1.Node{makeNode("a", nodeAlloc("2", "8Gi")), makeNode("b", nodeAlloc("2", "8Gi"))}
	for _, tc := range []struct {
		name      string
		nodes     []*corev1.Node
		pods      []*corev1.Pod
		protected Protected
		node      string
		victims   []string
		ok, wait  bool
	}{
		{name: "one low pod makes room", nodes: small[:1], pods: []*corev1.Pod{bound("low", "a", "1500m", 10), bound("mid", "a", "500m", 500)},
			node: "a", victims: []string{"low"}, ok: true},
		{name: "the lower of two nodes' victims", nodes: small, pods: []*corev1.Pod{bound("x", "a", "2", 100), bound("y", "b", "2", 10)},
			node: "b", victims: []string{"y"}, ok: true},
		{name: "equal or higher priority is never a victim", nodes: small[:1], pods: []*corev1.Pod{bound("same", "a", "2", 1000)}},
		{name: "smaller pods reprieved when one victim suffices", nodes: small[:1],
			pods: []*corev1.Pod{bound("big", "a", "1", 10), bound("s1", "a", "500m", 20), bound("s2", "a", "500m", 30)},
			node: "a", victims: []string{"big"}, ok: true},
		{name: "a node without budget violations wins", nodes: small, protected: byName("x"),
			pods: []*corev1.Pod{bound("x", "a", "2", 10), bound("y", "b", "2", 20)}, node: "b", victims: []string{"y"}, ok: true},
		{name: "a budget is broken when nothing else helps", nodes: small[:1], protected: byName("x"),
			pods: []*corev1.Pod{bound("x", "a", "2", 10)}, node: "a", victims: []string{"x"}, ok: true},
		{name: "waits for a victim already being deleted", nodes: small[:1],
			pods: []*corev1.Pod{bound("going", "a", "2", 10, deleting)}, wait: true},
		{name: "cordoned node is no candidate", nodes: []*corev1.Node{makeNode("c", nodeAlloc("2", "8Gi"), func(n *corev1.Node) { n.Spec.Unschedulable = true })},
			pods: []*corev1.Pod{bound("low", "c", "2", 10)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.nodes, tc.pods...)
			hi := makePod("default", "hi", podReq("1", ""), podPriority(1000))
			node, victims, ok, wait := e.preemptOn(t, hi, tc.protected)
			if ok != tc.ok || wait != tc.wait || node != tc.node || !slices.Equal(victims, tc.victims) {
				t.Errorf("got node %q victims %v ok %v wait %v, want %q %v %v %v", node, victims, ok, wait, tc.node, tc.victims, tc.ok, tc.wait)
			}
		})
	}
}
