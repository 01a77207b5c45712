package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func TestPodResources(t *testing.T) {
	lim := func(mem, cpu string) corev1.ResourceRequirements {
		l := corev1.ResourceList{}
		if mem != "" {
			l[corev1.ResourceMemory] = resource.MustParse(mem)
		}
		if cpu != "" {
			l[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		return corev1.ResourceRequirements{Limits: l, Requests: l}
	}
	always := corev1.ContainerRestartPolicyAlways
	cases := []struct {
		name  string
		inits []corev1.Container
		ctrs  []corev1.Container
		over  corev1.ResourceList
		want  runtime.PodResources
	}{
		{"best effort", nil, []corev1.Container{{}}, nil, runtime.PodResources{CPUShares: 2}},
		{"sum plus overhead", nil, []corev1.Container{{Resources: lim("32Mi", "200m")}, {Resources: lim("16Mi", "100m")}},
			corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Mi"), corev1.ResourceCPU: resource.MustParse("50m")},
			runtime.PodResources{MemoryLimit: 56 << 20, CPUQuota: 35000, CPUPeriod: 100000, CPUShares: 358}},
		{"a container without a limit: none", nil, []corev1.Container{{Resources: lim("32Mi", "")}, {}}, nil,
			runtime.PodResources{CPUShares: 2}},
		{"the largest init container wins", []corev1.Container{{Resources: lim("64Mi", "1")}},
			[]corev1.Container{{Resources: lim("32Mi", "200m")}}, nil,
			runtime.PodResources{MemoryLimit: 64 << 20, CPUQuota: 100000, CPUPeriod: 100000, CPUShares: 1024}},
		{"sidecars add up", []corev1.Container{{Resources: lim("16Mi", "100m"), RestartPolicy: &always}},
			[]corev1.Container{{Resources: lim("32Mi", "200m")}}, nil,
			runtime.PodResources{MemoryLimit: 48 << 20, CPUQuota: 30000, CPUPeriod: 100000, CPUShares: 307}},
	}
	for _, c := range cases {
		pod := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: c.inits, Containers: c.ctrs, Overhead: c.over}}
		if got := podResources(pod); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
