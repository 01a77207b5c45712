package mqtt

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hollowReport is a pods/status payload of n pods shaped as a hollow
// node's Running report (bench/hollow): three conditions, host and pod
// IPs, one running container.
func hollowReport(tb testing.TB, n int) []byte {
	tb.Helper()
	now := metav1.Now().Rfc3339Copy()
	started := true
	r := &PodStatusReport{Node: "arm0-00042"}
	for i := range n {
		name := fmt.Sprintf("burst-%d", i)
		r.Pods = append(r.Pods, PodStatusEntry{Namespace: "default", Name: name,
			UID: fmt.Sprintf("6f1c2d4e-0b6a-4a51-9d7e-%012d", i), Status: corev1.PodStatus{
				Phase: corev1.PodRunning, HostIP: "10.1.2.3", HostIPs: []corev1.HostIP{{IP: "10.1.2.3"}},
				PodIP: "10.12.34.56", PodIPs: []corev1.PodIP{{IP: "10.12.34.56"}}, StartTime: &now,
				Conditions: []corev1.PodCondition{
					{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
					{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
					{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "registry.local/app:1",
					ImageID: "hollow://registry.local/app:1", ContainerID: "hollow://6f1c2d4e-app", Ready: true,
					Started: &started, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}}})
	}
	data, err := r.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkDecodePodStatus times the server's decode and checks of one
// hollow node's Running report of 1 and of 16 pods.
func BenchmarkDecodePodStatus(b *testing.B) {
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			data := hollowReport(b, n)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := DecodePodStatus(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
