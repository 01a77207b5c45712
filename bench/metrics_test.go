package bench

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// BenchmarkHeartbeatUsage1000 measures what resource usage in the
// heartbeats costs the server: 1,000 hollow agents heartbeat every 10 s,
// first without usage, then (a fresh server) each carrying the usage of
// 30 pods of two containers; the server's CPU over a window once all are
// Ready, and its RSS, in both runs (budget for the difference: +5 % of a
// core, +20 MiB). The second run also reads the metrics API and checks it
// lists every node. -short uses 200 agents and a 20 s window.
//
//	go test -run '^$' -bench HeartbeatUsage1000 -benchtime 1x -timeout 40m ./bench/
func BenchmarkHeartbeatUsage1000(b *testing.B) {
	nodes, window := 1000, time.Minute
	if testing.Short() {
		nodes, window = 200, 20*time.Second
	}
	for range b.N {
		cpu0, rss0 := usageRun(b, nodes, window, 0)
		cpu1, rss1 := usageRun(b, nodes, window, 30)
		b.ReportMetric(cpu0, "%cpu-without")
		b.ReportMetric(cpu1, "%cpu-with")
		b.ReportMetric(cpu1-cpu0, "%cpu-added")
		b.ReportMetric(float64(rss0)/(1<<20), "MiB-rss-without")
		b.ReportMetric(float64(rss1)/(1<<20), "MiB-rss-with")
		b.ReportMetric(float64(rss1-rss0)/(1<<20), "MiB-rss-added")
	}
}

// usageRun runs one server with nodes hollow agents whose heartbeats carry
// pods pods' usage and returns its CPU (percent of a core) over window
// and its RSS at the end.
func usageRun(b *testing.B, nodes int, window time.Duration, pods int) (float64, int64) {
	s := startTarget(b)
	h := startHollow(b, s, nodes, 10*time.Second, "-usage-pods", strconv.Itoa(pods))
	s.waitReady(b, h, nodes, 10*time.Minute)
	time.Sleep(20 * time.Second) // registration and first resyncs
	cpu0, t0 := s.cpu(b), time.Now()
	time.Sleep(window)
	cpu, elapsed := s.cpu(b)-cpu0, time.Since(t0)
	rss := s.rss(b)
	if pods > 0 {
		if got := s.nodeMetrics(b); got != nodes {
			b.Fatalf("metrics API: got %d NodeMetrics, want %d", got, nodes)
		}
	}
	h.stop()
	s.stop()
	return 100 * cpu.Seconds() / elapsed.Seconds(), rss
}

// nodeMetrics counts the items of the metrics API's node list.
func (s *target) nodeMetrics(b testing.TB) int {
	b.Helper()
	out, err := exec.Command("kubectl", "--kubeconfig", s.kubeconfig, "get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes").Output()
	if err != nil {
		b.Fatalf("kubectl get --raw nodes metrics: %v", err)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		b.Fatalf("node metrics: %v", err)
	}
	return len(list.Items)
}
