package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/informer"
)

// window measures the server's process from a Deployment's apply to its
// pods all Ready, split where they are all bound: CPU time, decodes and
// datastore writes (revisions) of each phase. With
// BRAMBLE_BENCH_PPROF_DIR set, each phase is CPU-profiled into a file of
// its own (deployment1000-to-bound, deployment1000-bound-to-ready).
type window struct {
	start                time.Time
	cpu0, cpuBound, cpu1 time.Duration
	dec0, dec1           int64
	reused0, reused1     int64
	mem0, mem1           runtime.MemStats
	rev0, rev1           int64
	stopProfile          func()
	b                    *testing.B
	commits              *commitSampler
	commitTotal, peak    uint64
	handed0, handed1     int64 // objects the cache took from the registry
}

func startWindow(b *testing.B, c *minicluster.Cluster) *window {
	w := &window{b: b}
	w.start, w.cpu0, w.dec0, w.rev0 = time.Now(), processCPU(b), api.Decodes(), currentRev(b, c)
	w.reused0 = api.ReusedSections()
	w.handed0, _, _ = informer.HandoffTotals()
	runtime.ReadMemStats(&w.mem0)
	w.stopProfile = cpuProfile(b, "deployment1000-to-bound")
	w.commits = sampleCommits(b)
	return w
}

// bound marks the end of the first phase (waitPhases's onBound).
func (w *window) bound() {
	w.stopProfile()
	w.cpuBound = processCPU(w.b)
	w.stopProfile = cpuProfile(w.b, "deployment1000-bound-to-ready")
}

func (w *window) end(b *testing.B, c *minicluster.Cluster) {
	w.cpu1, w.dec1, w.reused1 = processCPU(b), api.Decodes(), api.ReusedSections()
	w.handed1, _, _ = informer.HandoffTotals()
	runtime.ReadMemStats(&w.mem1)
	w.stopProfile()
	w.rev1 = currentRev(b, c)
	w.commitTotal, w.peak = w.commits.end(b)
}

// reportCommits gives the datastore's commits (fsyncs) per pod and the
// most in any one second of the window.
func (w *window) reportCommits(b *testing.B, pods int) {
	b.ReportMetric(float64(w.commitTotal)/float64(pods), "commits/pod")
	b.ReportMetric(float64(w.peak), "max-commits/s")
}

// report gives the benchmark's figures: the whole window per pod (as
// before), and each phase: CPU per pod, and after the binding CPU per
// second too, to set beside BenchmarkHollow100Idle's idle cost.
func (w *window) report(b *testing.B, ph phases, pods int, load float64) {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(pods) }
	after := ph.ready.Sub(ph.bound).Seconds()
	b.ReportMetric(ph.bound.Sub(w.start).Seconds(), "s-to-bound")
	b.ReportMetric(ph.ready.Sub(w.start).Seconds(), "s-to-ready")
	b.ReportMetric(per(w.cpu1-w.cpu0), "cpu-ms/pod")
	b.ReportMetric(per(w.cpuBound-w.cpu0), "cpu-ms/pod-to-bound")
	b.ReportMetric(per(w.cpu1-w.cpuBound), "cpu-ms/pod-after-bound")
	b.ReportMetric(float64((w.cpu1-w.cpuBound).Milliseconds())/max(after, 1e-3), "cpu-ms/s-after-bound")
	b.ReportMetric(float64(w.dec1-w.dec0)/float64(pods), "decodes/pod")
	b.ReportMetric(float64(w.reused1-w.reused0)/float64(pods), "sections-reused/pod")
	_, peak, peakBytes := informer.HandoffTotals()
	b.ReportMetric(float64(w.handed1-w.handed0)/float64(pods), "handoffs/pod")
	b.ReportMetric(float64(peak), "handoff-peak-offers")
	b.ReportMetric(float64(peakBytes)/1024, "handoff-peak-KiB")
	b.ReportMetric(float64(w.mem1.Mallocs-w.mem0.Mallocs)/float64(pods), "allocs/pod")
	b.ReportMetric(float64(w.mem1.TotalAlloc-w.mem0.TotalAlloc)/1024/float64(pods), "alloc-KiB/pod")
	b.ReportMetric(float64(w.rev1-w.rev0)/float64(pods), "writes/pod")
	b.ReportMetric(float64(ph.creates)/float64(pods), "pod-creates/pod")
	b.ReportMetric(float64(ph.binds)/float64(pods), "pod-bindings/pod")
	b.ReportMetric(float64(ph.podOthers)/float64(pods), "pod-status-writes/pod")
	b.ReportMetric(float64(w.rev1-w.rev0-int64(ph.creates+ph.binds+ph.podOthers))/float64(pods), "other-writes/pod")
	b.ReportMetric(load, "load1")
	w.reportCommits(b, pods)
}

// BenchmarkHollow100Idle is BenchmarkDeployment1000's cluster (the server
// with controllers and scheduler, 100 hollow nodes heartbeating every
// 10 s) with no pods: the server process's CPU per second over 20 s once
// the nodes have joined, the fixed cost every second of a Deployment's
// window also pays. -short: 10 nodes, 5 s.
//
//	go test -run '^$' -bench 'BenchmarkHollow100Idle$' -benchtime 1x ./bench/
func BenchmarkHollow100Idle(b *testing.B) {
	nodes, span := 100, 20*time.Second
	if testing.Short() {
		nodes, span = 10, 5*time.Second
	}
	for range b.N {
		c := startControllerCluster(b, nodes)
		time.Sleep(3 * time.Second) // the joins' last writes
		load := loadAverage(b)
		b.ResetTimer()
		cpu, dec, rev := processCPU(b), api.Decodes(), currentRev(b, c)
		stop := cpuProfile(b, "hollow100-idle")
		time.Sleep(span)
		stop()
		cpu, dec, rev = processCPU(b)-cpu, api.Decodes()-dec, currentRev(b, c)-rev
		b.StopTimer()
		b.ReportMetric(float64(cpu.Microseconds())/1000/span.Seconds(), "cpu-ms/s")
		b.ReportMetric(float64(dec)/span.Seconds(), "decodes/s")
		b.ReportMetric(float64(rev)/span.Seconds(), "writes/s")
		b.ReportMetric(load, "load1")
		c.Stop()
	}
}
