package api

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PodQOSClass computes a pod's quality-of-service class from its containers'
// CPU and memory requests and limits: BestEffort when none are set,
// Guaranteed when every container limits both and requests equal limits,
// Burstable otherwise. Every pod created is classed: the sums are kept in
// place, without maps or a copy of the containers.
func PodQOSClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	var requests, limits qosSums
	guaranteed := true
	for _, cs := range [2][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			requests.add(cs[i].Resources.Requests)
			if cpu, mem := limits.add(cs[i].Resources.Limits); !cpu || !mem {
				guaranteed = false
			}
		}
	}
	if requests.count() == 0 && limits.count() == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed && requests.count() == limits.count() && limits.covers(&requests) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// qosSums are the sums of the positive CPU and memory quantities seen.
type qosSums struct {
	cpu, mem       resource.Quantity
	hasCPU, hasMem bool
}

// add sums list's positive CPU and memory into s and reports which it saw.
func (s *qosSums) add(list corev1.ResourceList) (cpu, mem bool) {
	if q, ok := list[corev1.ResourceCPU]; ok && q.Cmp(resource.Quantity{}) > 0 {
		s.cpu.Add(q)
		s.hasCPU, cpu = true, true
	}
	if q, ok := list[corev1.ResourceMemory]; ok && q.Cmp(resource.Quantity{}) > 0 {
		s.mem.Add(q)
		s.hasMem, mem = true, true
	}
	return cpu, mem
}

func (s *qosSums) count() int {
	n := 0
	if s.hasCPU {
		n++
	}
	if s.hasMem {
		n++
	}
	return n
}

// covers reports whether s has each of req's sums, equal.
func (s *qosSums) covers(req *qosSums) bool {
	if req.hasCPU && (!s.hasCPU || s.cpu.Cmp(req.cpu) != 0) {
		return false
	}
	return !req.hasMem || (s.hasMem && s.mem.Cmp(req.mem) == 0)
}
