package pods

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// BenchmarkRealPodStart measures Update of a new pod (image present) to
// its first reported status with the container running, on the private
// containerd: the agent's share of "kubectl apply to container running".
func BenchmarkRealPodStart(b *testing.B) {
	rt, _, _ := realRuntime(b)
	log := &statusLog{}
	m, _ := realManager(b, rt, &fakeStore{}, log)
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		pod := busyboxPod(fmt.Sprintf("bench-%d", i), "sleep 3600")
		start := time.Now()
		m.Update(pod)
		waitStatus(b, log, pod.UID, 20*time.Second, "Running", func(s corev1.PodStatus) bool { return s.Phase == corev1.PodRunning })
		lat = append(lat, time.Since(start))
		b.StopTimer()
		m.Delete(types.UID(pod.UID))
		waitFor(b, "pod removed", func() bool { cs, _ := rt.ListContainers(b.Context()); return len(cs) == 0 })
		b.StartTimer()
	}
	b.ReportMetric(float64(percentile(lat, 50).Milliseconds()), "p50-ms")
	b.ReportMetric(float64(percentile(lat, 99).Milliseconds()), "p99-ms")
}

func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[(len(s)-1)*p/100]
}
