package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/bench/crdgen"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// BenchmarkKubectlApplyCRD2MiB is `kubectl apply --server-side` of a
// generated 2 MiB CRD (cert-manager's largest are of that size; a
// client-side apply of one is refused by kubectl itself, its
// last-applied annotation being over 256 KiB) against the real binary,
// until kubectl returns, then `kubectl wait --for condition=established`.
func BenchmarkKubectlApplyCRD2MiB(b *testing.B) {
	s := cluster.StartServer(b)
	defer s.Stop()
	var apply, established time.Duration
	for i := 0; i < b.N; i++ {
		group := fmt.Sprintf("big%d.bench.dev", i)
		begin := time.Now()
		if _, errOut, err := s.Apply(string(crdgen.JSON(crdgen.Big(group, 2<<20))), "--server-side"); err != nil {
			b.Fatalf("apply: %v %s", err, errOut)
		}
		apply += time.Since(begin)
		s.MustKubectl("wait", "--for", "condition=established", "crd/things."+group, "--timeout=30s")
		established += time.Since(begin)
	}
	b.ReportMetric(float64(apply.Milliseconds())/float64(b.N), "ms-apply")
	b.ReportMetric(float64(established.Milliseconds())/float64(b.N), "ms-established")
}

// BenchmarkIdleMemory50CRDs is the server's memory after 60 s idle (1 s
// with -short): started, after one small CRD (with one object, applied
// with kubectl and its client-side validation) and after 49 more, each
// established, served, in discovery and in the OpenAPI documents kubectl
// fetched. The first CRD also brings in the code paths CRDs use (pages of
// the binary); the 49 after it are what CRDs themselves cost. Budget:
// +10 MiB VmRSS for 50.
func BenchmarkIdleMemory50CRDs(b *testing.B) {
	idle := 60 * time.Second
	if testing.Short() {
		idle = time.Second
	}
	for i := 0; i < b.N; i++ {
		s := cluster.StartServer(b)
		s.MustKubectl("get", "namespaces")
		time.Sleep(idle)
		rss0, anon0 := procMemory(b, s.PID())
		applyCRDs(b, s, 0, 1)
		time.Sleep(idle)
		rss1, anon1 := procMemory(b, s.PID())
		applyCRDs(b, s, 1, 50)
		time.Sleep(idle)
		rss50, anon50 := procMemory(b, s.PID())
		b.ReportMetric(rss0/1024, "VmRSS-MiB-idle")
		b.ReportMetric((rss50-rss0)/1024, "VmRSS-MiB-delta50")
		b.ReportMetric((anon50-anon0)/1024, "RssAnon-MiB-delta50")
		b.ReportMetric((rss50-rss1)/1024, "VmRSS-MiB-delta49")
		b.ReportMetric((anon50-anon1)/1024, "RssAnon-MiB-delta49")
		s.Stop()
	}
}

// applyCRDs applies small CRDs from..to-1 with one object each.
func applyCRDs(b *testing.B, s *cluster.Server, from, to int) {
	for j := from; j < to; j++ {
		group := fmt.Sprintf("g%d.bench.dev", j)
		if _, errOut, err := s.Apply(string(crdgen.JSON(crdgen.Small(group)))); err != nil {
			b.Fatalf("apply CRD: %v %s", err, errOut)
		}
		s.MustKubectl("wait", "--for", "condition=established", "crd/things."+group, "--timeout=30s")
		if _, errOut, err := s.Apply(string(crdgen.Thing(group, "t1", 1))); err != nil {
			b.Fatalf("apply object: %v %s", err, errOut)
		}
	}
	s.MustKubectl("api-resources")
}
