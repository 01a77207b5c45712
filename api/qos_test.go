package api

import (
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// refQOSClass is PodQOSClass as first written, with maps: the oracle the
// map-free one is checked against.
func refQOSClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed := true
	all := append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...)
	for _, c := range all {
		refAdd(requests, c.Resources.Requests)
		found := refAdd(limits, c.Resources.Limits)
		if !found[corev1.ResourceCPU] || !found[corev1.ResourceMemory] {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed && len(requests) == len(limits) {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
			}
		}
		if guaranteed {
			return corev1.PodQOSGuaranteed
		}
	}
	return corev1.PodQOSBurstable
}

func refAdd(to, from corev1.ResourceList) map[corev1.ResourceName]bool {
	found := map[corev1.ResourceName]bool{}
	for name, q := range from {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
			continue
		}
		if q.Cmp(resource.Quantity{}) <= 0 {
			continue
		}
		found[name] = true
		sum := to[name]
		sum.Add(q)
		to[name] = sum
	}
	return found
}

func TestPodQOSClassMatchesMapSums(t *testing.T) {
	values := []string{"0", "-1", "100m", "1", "1000m", "128Mi", "134217728", "2Gi"}
	names := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, "ephemeral-storage", "example.com/gpu"}
	rng := rand.New(rand.NewSource(1))
	list := func() corev1.ResourceList {
		if rng.Intn(4) == 0 {
			return nil
		}
		l := corev1.ResourceList{}
		for _, n := range names {
			if rng.Intn(3) > 0 {
				l[n] = resource.MustParse(values[rng.Intn(len(values))])
			}
		}
		return l
	}
	containers := func(max int) []corev1.Container {
		cs := make([]corev1.Container, rng.Intn(max+1))
		for i := range cs {
			cs[i].Resources = corev1.ResourceRequirements{Requests: list(), Limits: list()}
			if rng.Intn(3) == 0 { // requests equal to limits, as Guaranteed pods have them
				cs[i].Resources.Requests = cs[i].Resources.Limits
			}
		}
		return cs
	}
	seen := map[corev1.PodQOSClass]int{}
	for i := 0; i < 20000; i++ {
		spec := &corev1.PodSpec{InitContainers: containers(1), Containers: containers(3)}
		got, want := PodQOSClass(spec), refQOSClass(spec)
		if got != want {
			t.Fatalf("case %d: got %s, want %s for %+v", i, got, want, spec)
		}
		seen[got]++
	}
	for _, c := range []corev1.PodQOSClass{corev1.PodQOSBestEffort, corev1.PodQOSBurstable, corev1.PodQOSGuaranteed} {
		if seen[c] == 0 {
			t.Errorf("no case classed %s: %v", c, seen)
		}
	}
}
