package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// scenario drives a cache and the algorithm through random decisions,
// bindings that succeed or fail, deletions, terminations and node changes.
type scenario struct {
	t       *testing.T
	r       *rand.Rand
	e       *env
	nodes   []*corev1.Node
	pending []*corev1.Pod
	assumed []*corev1.Pod // decided, binding "in flight"
	bound   []*corev1.Pod
	made    int
}

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

func (s *scenario) randomNode(i int) *corev1.Node {
	r := s.r
	return makeNode(fmt.Sprintf("node-%d", i),
		nodeAlloc(pick(r, []string{"500m", "1", "2", "4"}), pick(r, []string{"512Mi", "1Gi", "4Gi"})),
		nodeMaxPods(pick(r, []int64{2, 5, 110})),
		nodeLabels(corev1.LabelTopologyZone, pick(r, []string{"a", "b", "c"})),
		nodeArch(pick(r, []string{"amd64", "arm64", "arm/v7"})),
		func(n *corev1.Node) {
			if r.IntN(5) == 0 {
				nodeTaint("dedicated", "x", corev1.TaintEffectNoSchedule)(n)
			}
		})
}

func (s *scenario) randomPod() *corev1.Pod {
	r := s.r
	s.made++
	mods := []func(*corev1.Pod){owned(fmt.Sprint("rs", r.IntN(4)))}
	if r.IntN(6) > 0 {
		mods = append(mods, podReq(pick(r, []string{"", "100m", "250m", "700m", "1500m"}),
			pick(r, []string{"", "64Mi", "300Mi", "1Gi", "2Gi"})))
	}
	if r.IntN(8) == 0 {
		mods = append(mods, podPorts(false, corev1.ContainerPort{ContainerPort: 80, HostPort: pick(r, []int32{80, 443})}))
	}
	if r.IntN(4) == 0 {
		mods = append(mods, tolerate("dedicated", corev1.TolerationOpExists, "", ""))
	}
	return makePod("default", fmt.Sprintf("pod-%d", s.made), mods...)
}

// step takes one random action.
func (s *scenario) step() {
	switch k := s.r.IntN(100); {
	case k < 45 && len(s.pending) > 0:
		s.scheduleOne()
	case k < 60 && len(s.assumed) > 0:
		p := s.takeAssumed()
		s.e.cache.addPod(newPodInfo(p)) // the watch confirms the binding
		s.bound = append(s.bound, p)
	case k < 70 && len(s.assumed) > 0:
		p := s.takeAssumed()
		s.e.cache.forget(podKey(p.Namespace, p.Name), p.UID) // the binding failed
		p.Spec.NodeName = ""
		s.pending = append(s.pending, p)
	case k < 80 && len(s.bound) > 0:
		s.endBoundPod()
	case k < 90:
		s.changeNodes()
	default:
		s.pending = append(s.pending, s.randomPod())
	}
}

// endBoundPod deletes a bound pod or lets it finish.
func (s *scenario) endBoundPod() {
	i := s.r.IntN(len(s.bound))
	p := s.bound[i]
	s.bound = slices.Delete(s.bound, i, i+1)
	if s.r.IntN(2) == 0 {
		p.Status.Phase = corev1.PodSucceeded
		s.e.cache.addPod(newPodInfo(p))
		return
	}
	s.e.cache.removePod(podKey(p.Namespace, p.Name))
}

// changeNodes adds a node, or moves one to another zone untainted.
func (s *scenario) changeNodes() {
	if s.r.IntN(2) == 0 {
		n := s.randomNode(len(s.nodes))
		s.nodes = append(s.nodes, n)
		s.e.cache.setNode(n)
		return
	}
	n := pick(s.r, s.nodes).DeepCopy()
	n.Spec.Taints, n.Labels[corev1.LabelTopologyZone] = nil, pick(s.r, []string{"a", "b", "d"})
	s.e.cache.setNode(n)
}

func (s *scenario) scheduleOne() {
	i := s.r.IntN(len(s.pending))
	p := s.pending[i]
	node, err := s.e.schedule(p)
	if err != nil {
		return
	}
	if err := s.e.cache.assume(newPodInfo(p), node); err != nil {
		s.t.Fatalf("assume %s on %s: %v", p.Name, node, err)
	}
	p.Spec.NodeName = node
	s.pending = slices.Delete(s.pending, i, i+1)
	s.assumed = append(s.assumed, p)
}

func (s *scenario) takeAssumed() *corev1.Pod {
	i := s.r.IntN(len(s.assumed))
	p := s.assumed[i]
	s.assumed = slices.Delete(s.assumed, i, i+1)
	return p
}

// checkNoOvercommit verifies every node's account against its allocatable.
func (s *scenario) checkNoOvercommit(step int) {
	s.e.cache.mu.Lock()
	defer s.e.cache.mu.Unlock()
	for name, it := range s.e.cache.nodes {
		n := it.info
		if n.node == nil {
			continue
		}
		if n.requested.milliCPU > n.alloc.milliCPU || n.requested.memory > n.alloc.memory ||
			int64(n.podCount()) > n.maxPods {
			s.t.Fatalf("step %d: node %s over-committed: requested %+v of %+v, %d pods of %d",
				step, name, n.requested, n.alloc, n.podCount(), n.maxPods)
		}
		for i, a := range n.ports {
			for _, b := range n.ports[i+1:] {
				if a.conflicts(b) {
					s.t.Fatalf("step %d: node %s has host port %d twice", step, name, a.port)
				}
			}
		}
	}
}

func TestNeverOvercommits(t *testing.T) {
	for seed := range 25 {
		r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
		s := &scenario{t: t, r: r}
		for i := range 3 + r.IntN(20) {
			s.nodes = append(s.nodes, s.randomNode(i))
		}
		s.e = newEnv(t, s.nodes)
		for range 40 {
			s.pending = append(s.pending, s.randomPod())
		}
		for step := range 600 {
			s.step()
			s.checkNoOvercommit(step)
			if step%50 == 0 {
				checkSnapshot(t, s.e.cache, s.e.snap)
			}
		}
		checkSnapshot(t, s.e.cache, s.e.snap)
	}
}

func TestQuantitiesRoundTrip(t *testing.T) {
	// The accounting reads quantities in millicores and bytes; a request in
	// another notation must count the same.
	l := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.5"), corev1.ResourceMemory: resource.MustParse("1G")}
	if got := resourcesOf(l); got.milliCPU != 500 || got.memory != 1_000_000_000 {
		t.Errorf("got %+v, want 500m and 1e9 bytes", got)
	}
}
