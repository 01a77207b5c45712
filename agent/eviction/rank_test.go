package eviction

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func usagePod(name string, disk int64, req string, prio int32) PodUsage {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)},
		Spec: corev1.PodSpec{Priority: &prio, Containers: []corev1.Container{{Name: "c"}}}}
	if req != "" {
		q := resource.MustParse(req)
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceEphemeralStorage: q, corev1.ResourceMemory: q}
	}
	return PodUsage{Pod: p, Disk: disk, Memory: disk, Containers: map[string]int64{"c": disk}}
}

func names(cs []candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.pod.Pod.Name)
	}
	return out
}

func TestRankFollowsTheKubelet(t *testing.T) {
	pods := []PodUsage{
		usagePod("within-request", 50<<20, "100Mi", 0),
		usagePod("over-request-small", 30<<20, "10Mi", 0),
		usagePod("besteffort-small", 1<<20, "", 0),
		usagePod("besteffort-big", 40<<20, "", 0),
		usagePod("besteffort-important", 90<<20, "", 1000),
		usagePod("critical", 500<<20, "", criticalPriority),
	}
	for _, c := range []struct {
		r    corev1.ResourceName
		want []string
	}{
		{corev1.ResourceEphemeralStorage, []string{"besteffort-big", "over-request-small", "besteffort-small", "besteffort-important", "within-request"}},
		// Memory use is the pod's working set, here as its disk use.
		{corev1.ResourceMemory, []string{"besteffort-big", "over-request-small", "besteffort-small", "besteffort-important", "within-request"}},
	} {
		got := names(rank(pods, c.r))
		if len(got) != len(c.want) {
			t.Fatalf("%s: got %v, want %v", c.r, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: got order %v, want %v", c.r, got, c.want)
				break
			}
		}
	}
}

func TestOverLimitsMessages(t *testing.T) {
	dir := usagePod("dir", 0, "", 0)
	dir.Pod.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		Medium: corev1.StorageMediumMemory, SizeLimit: ptr(resource.MustParse("64Mi"))}}}}
	dir.EmptyDirs = map[string]int64{"tmp": 65 << 20}
	pod := usagePod("pod", 3<<20, "", 0)
	pod.Pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("2Mi")}
	fine := usagePod("fine", 1<<20, "", 0)
	fine.Pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("2Mi")}
	got := overLimits([]PodUsage{dir, pod, fine})
	want := []violation{
		{"dir", `Usage of EmptyDir volume "tmp" exceeds the limit "64Mi". `},
		{"pod", "Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. "},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func ptr[T any](v T) *T { return &v }
