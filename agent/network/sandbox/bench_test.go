package sandbox

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"
)

// BenchmarkSetup measures the CNI step a pod's start adds: pinning its
// namespaces and the loopback and bridge/portmap/bandwidth ADDs, against
// the real plugins in a private network namespace. Each pod is torn down
// outside the timed part. Reports p50 and p99 of Setup (budget: p99 <=
// 150 ms) and of Teardown.
func BenchmarkSetup(b *testing.B) {
	for _, hostPort := range []bool{false, true} {
		b.Run(fmt.Sprintf("hostPort=%v", hostPort), func(b *testing.B) { benchSetup(b, hostPort) })
	}
}

func benchSetup(b *testing.B, hostPort bool) {
	m := newTestManager(b, b.TempDir(), true)
	var setup, teardown []time.Duration
	inPrivateNet(b, func() error {
		if err := m.SetPodCIDR(netip.MustParsePrefix("10.88.0.0/24")); err != nil {
			return err
		}
		b.ResetTimer()
		for i := range b.N {
			pod := testPod("bench", i)
			if hostPort {
				pod.Spec.Containers[0].Ports[0].HostPort = 30080
			}
			start := time.Now()
			if _, err := m.Setup(bg, pod); err != nil {
				return err
			}
			setup = append(setup, time.Since(start))
			b.StopTimer()
			start = time.Now()
			if err := m.Teardown(bg, string(pod.UID)); err != nil {
				return err
			}
			teardown = append(teardown, time.Since(start))
			b.StartTimer()
		}
		return nil
	})
	b.ReportMetric(quantile(setup, 0.50), "setup-p50-ms")
	b.ReportMetric(quantile(setup, 0.99), "setup-p99-ms")
	b.ReportMetric(quantile(teardown, 0.50), "teardown-p50-ms")
	b.ReportMetric(quantile(teardown, 0.99), "teardown-p99-ms")
}

func quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(int(q*float64(len(s))), len(s)-1)]) / float64(time.Millisecond)
}
