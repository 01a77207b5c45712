package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestResourcesFit(t *testing.T) {
	// The node has 4 CPUs and 8 GiB; 3 CPUs and 6 GiB are taken.
	taken := makePod("default", "taken", podReq("3", "6Gi"), podOn("n1"))
	tests := []struct {
		name string
		pod  func(*corev1.Pod)
		want []string
	}{
		{"no requests fit", func(*corev1.Pod) {}, nil},
		{"fits exactly", podReq("1", "2Gi"), nil},
		{"cpu short", podReq("1001m", "1Gi"), []string{"Insufficient cpu"}},
		{"memory short", podReq("500m", "3Gi"), []string{"Insufficient memory"}},
		{"both short: both reasons", podReq("2", "3Gi"), []string{"Insufficient cpu", "Insufficient memory"}},
		{"memory only asked, cpu full is fine", podReq("", "1Gi"), nil},
		{"ephemeral short", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
				corev1.ResourceEphemeralStorage: resource.MustParse("200Gi")}
		}, []string{"Insufficient ephemeral-storage"}},
		{"overhead counts", func(p *corev1.Pod) {
			podReq("500m", "")(p)
			p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("600m")}
		}, []string{"Insufficient cpu"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []*corev1.Node{makeNode("n1")}, taken)
			got := e.filterResult(resourcesFit{}, makePod("default", "p", tc.pod), "n1")
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPodCount(t *testing.T) {
	e := newEnv(t, []*corev1.Node{makeNode("n1", nodeMaxPods(2))},
		makePod("default", "a", podOn("n1")))
	if got := e.filterResult(podCount{}, makePod("default", "p"), "n1"); got != nil {
		t.Fatalf("second pod: got %q, want it to fit", got)
	}
	e.cache.addPod(newPodInfo(makePod("default", "b", podOn("n1"))))
	got := e.filterResult(podCount{}, makePod("default", "p"), "n1")
	if want := []string{"Too many pods"}; !slices.Equal(got, want) {
		t.Errorf("third pod: got %q, want %q", got, want)
	}
}

func TestTerminatedPodsDoNotCount(t *testing.T) {
	done := makePod("default", "done", podReq("4", "8Gi"), podOn("n1"))
	done.Status.Phase = corev1.PodSucceeded
	e := newEnv(t, []*corev1.Node{makeNode("n1")}, done)
	if got := e.filterResult(resourcesFit{}, makePod("default", "p", podReq("4", "8Gi")), "n1"); got != nil {
		t.Errorf("got %q, want the finished pod's resources free", got)
	}
}

func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	req := func(cpu string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want int64
	}{
		{"containers add up", corev1.PodSpec{Containers: []corev1.Container{{Resources: req("100m")}, {Resources: req("200m")}}}, 300},
		{"big init container wins", corev1.PodSpec{Containers: []corev1.Container{{Resources: req("100m")}},
			InitContainers: []corev1.Container{{Resources: req("1")}, {Resources: req("500m")}}}, 1000},
		{"small init container does not add", corev1.PodSpec{Containers: []corev1.Container{{Resources: req("1")}},
			InitContainers: []corev1.Container{{Resources: req("500m")}}}, 1000},
		{"sidecar adds to containers", corev1.PodSpec{Containers: []corev1.Container{{Resources: req("1")}},
			InitContainers: []corev1.Container{{Resources: req("200m"), RestartPolicy: &always}}}, 1200},
		{"init after sidecar runs beside it", corev1.PodSpec{Containers: []corev1.Container{{Resources: req("100m")}},
			InitContainers: []corev1.Container{{Resources: req("200m"), RestartPolicy: &always}, {Resources: req("1")}}}, 1200},
		{"overhead adds", corev1.PodSpec{Containers: []corev1.Container{{Resources: req("100m")}},
			Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")}}, 150},
	}
	for _, tc := range tests {
		if got := podRequests(&tc.spec, resourcesOf).milliCPU; got != tc.want {
			t.Errorf("%s: got %dm, want %dm", tc.name, got, tc.want)
		}
	}
}

func TestNonZeroRequests(t *testing.T) {
	spec := corev1.PodSpec{Containers: []corev1.Container{{}, {Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}
	got := podRequests(&spec, nonZeroOf)
	want := resourceSet{milliCPU: 1100, memory: 2 * defaultMemoryRequest}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestAllocatableFallsBackToCapacity(t *testing.T) {
	st := corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}
	got, pods := allocatableOf(&st)
	if got.milliCPU != 2000 || pods != defaultMaxPods {
		t.Errorf("got %dm CPU and %d pods, want 2000m and %d", got.milliCPU, pods, defaultMaxPods)
	}
}
