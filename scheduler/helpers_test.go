package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/clock/clocktest"
)

// makeNode builds a Ready linux/amd64 node with 4 CPUs, 8 GiB, 100 GiB of
// ephemeral storage and room for 110 pods, then applies mods.
func makeNode(name string, mods ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name),
			Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"),
				corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			NodeInfo:   corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux"},
		},
	}
	for _, m := range mods {
		m(n)
	}
	return n
}

func nodeAlloc(cpu, mem string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse(cpu)
		n.Status.Allocatable[corev1.ResourceMemory] = resource.MustParse(mem)
	}
}

func nodeMaxPods(pods int64) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Status.Allocatable[corev1.ResourcePods] = *resource.NewQuantity(pods, resource.DecimalSI)
	}
}

func nodeLabels(kv ...string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func nodeTaint(key, value string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func nodeArch(arch string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Status.NodeInfo.Architecture = arch }
}

func nodeReadyStatus(st corev1.ConditionStatus) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Status.Conditions[0].Status = st }
}

// makePod builds an unbound pod with one container (image nginx) and no
// requests, then applies mods.
func makePod(ns, name string, mods ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + ns + "-" + name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func podReq(cpu, mem string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		l := corev1.ResourceList{}
		if cpu != "" {
			l[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			l[corev1.ResourceMemory] = resource.MustParse(mem)
		}
		p.Spec.Containers[0].Resources.Requests = l
	}
}

func podOn(node string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.NodeName = node }
}

func podLabels(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func podImage(img string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Image = img }
}

func podPriority(prio int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Priority = &prio }
}

// env is a cache and its snapshot, for tests that look at decisions.
type env struct {
	cache *cache
	snap  *snapshot
	algo  *algorithm
}

// newEnv builds a cache holding nodes and the bound pods among pods.
func newEnv(t testing.TB, nodes []*corev1.Node, pods ...*corev1.Pod) *env {
	t.Helper()
	labels := []string{corev1.LabelTopologyZone}
	e := &env{cache: newCache(labels), snap: newSnapshot(labels), algo: newAlgorithm(0, nil)}
	for _, n := range nodes {
		e.cache.setNode(n)
	}
	for _, p := range pods {
		e.cache.addPod(newPodInfo(p))
	}
	return e
}

// schedule updates the snapshot and decides pod.
func (e *env) schedule(pod *corev1.Pod) (string, error) {
	e.cache.updateSnapshot(e.snap)
	return e.algo.schedule(newPodInfo(pod), e.snap)
}

// filterResult runs one filter for pod on the named node, after the
// per-cycle preparation the algorithm does.
func (e *env) filterResult(f filter, pod *corev1.Pod, node string) []string {
	e.cache.updateSnapshot(e.snap)
	c := e.prepare(newPodInfo(pod))
	return f.filter(c, e.snap.nodes[node])
}

func (e *env) prepare(p *podInfo) *cycle {
	c := &cycle{pod: p, snap: e.snap}
	c.arch.resolve(p, e.snap, e.algo.extra)
	c.prepareAffinity(e.snap)
	c.prepareAntiAffinity(e.snap)
	return c
}

// newFakeClock is the clock scheduler tests move by hand.
func newFakeClock() *clocktest.Fake { return clocktest.NewFake(time.Unix(1_700_000_000, 0)) }
