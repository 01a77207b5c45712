package nodestatus

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runningReport is a node's report of a started pod: Running, its one
// container ready, the kubelet's four conditions.
func runningReport() (stored, reported *corev1.PodStatus) {
	now := metav1.NewTime(time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC))
	yes := true
	stored = &corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable,
		Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now}}}
	conds := []corev1.PodCondition{}
	for _, ty := range []corev1.PodConditionType{"PodReadyToStartContainers", corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		conds = append(conds, corev1.PodCondition{Type: ty, Status: corev1.ConditionTrue, LastTransitionTime: now})
	}
	reported = &corev1.PodStatus{Phase: corev1.PodRunning, Conditions: conds, HostIP: "10.0.0.1", PodIP: "10.42.0.5",
		PodIPs: []corev1.PodIP{{IP: "10.42.0.5"}}, HostIPs: []corev1.HostIP{{IP: "10.0.0.1"}}, StartTime: &now,
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Started: &yes, Image: "registry.lan/app:v1",
			ImageID: "sha256:0123", ContainerID: "containerd://abc",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}}
	return stored, reported
}

func BenchmarkMergeRunningReport(b *testing.B) {
	stored, reported := runningReport()
	b.ReportAllocs()
	for range b.N {
		next := mergePodStatus(stored, reported)
		if podStatusEqual(next, stored) {
			b.Fatal("equal")
		}
	}
}

func BenchmarkMergeRepeat(b *testing.B) {
	_, reported := runningReport()
	stored := mergePodStatus(&corev1.PodStatus{}, reported)
	b.ReportAllocs()
	for range b.N {
		next := mergePodStatus(stored, reported)
		if !podStatusEqual(next, stored) {
			b.Fatal("differs")
		}
	}
}

// TestPodStatusEqualAgreesWithSemantic: the quick checks before the
// reflection never change podStatusEqual's answer, for statuses that
// differ in each field they look at, and in others they do not.
func TestPodStatusEqualAgreesWithSemantic(t *testing.T) {
	_, base := runningReport()
	variants := []func(s *corev1.PodStatus){
		func(s *corev1.PodStatus) {},
		func(s *corev1.PodStatus) { s.Phase = corev1.PodPending },
		func(s *corev1.PodStatus) { s.Reason = "NodeDiskFull" },
		func(s *corev1.PodStatus) { s.Message = "full" },
		func(s *corev1.PodStatus) { s.PodIP = "10.42.0.6" },
		func(s *corev1.PodStatus) { s.HostIP = "10.0.0.2" },
		func(s *corev1.PodStatus) { s.Conditions = s.Conditions[:2] },
		func(s *corev1.PodStatus) { s.Conditions[1].Status = corev1.ConditionFalse },
		func(s *corev1.PodStatus) { s.Conditions[1].Type = "Other" },
		func(s *corev1.PodStatus) { s.Conditions[2].Message = "changed" },
		func(s *corev1.PodStatus) { s.Conditions = nil },
		func(s *corev1.PodStatus) { s.Conditions = []corev1.PodCondition{} },
		func(s *corev1.PodStatus) { s.ContainerStatuses = nil },
		func(s *corev1.PodStatus) { s.ContainerStatuses[0].Ready = false },
		func(s *corev1.PodStatus) { s.ContainerStatuses[0].RestartCount = 2 },
		func(s *corev1.PodStatus) { s.ContainerStatuses[0].ImageID = "sha256:4567" },
		func(s *corev1.PodStatus) { s.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init"}} },
		func(s *corev1.PodStatus) { s.InitContainerStatuses = []corev1.ContainerStatus{} },
		func(s *corev1.PodStatus) { s.QOSClass = corev1.PodQOSGuaranteed },
		func(s *corev1.PodStatus) { s.StartTime = nil },
	}
	statuses := make([]*corev1.PodStatus, len(variants))
	for i, v := range variants {
		statuses[i] = base.DeepCopy()
		v(statuses[i])
	}
	for i, a := range statuses {
		for j, b := range statuses {
			if got, want := podStatusEqual(a, b), equality.Semantic.DeepEqual(a, b); got != want {
				t.Errorf("variants %d and %d: podStatusEqual %v, Semantic.DeepEqual %v", i, j, got, want)
			}
		}
	}
}
