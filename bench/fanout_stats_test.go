package bench

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"testing"
)

// fanStats is what the server process's runtime counted over the timed
// updates of a fan-out: collections and heap allocations.
type fanStats struct{ gcs, mallocs, bytes uint64 }

func readFanStats() fanStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fanStats{gcs: uint64(m.NumGC), mallocs: m.Mallocs, bytes: m.TotalAlloc}
}

// report adds the collections per update and the allocations per delivery
// since s (updates x nodes deliveries).
func (s fanStats) report(b *testing.B, updates, nodes int) {
	now := readFanStats()
	b.ReportMetric(float64(now.gcs-s.gcs)/float64(updates), "server-gc/update")
	b.ReportMetric(float64(now.mallocs-s.mallocs)/float64(updates*nodes), "server-allocs/delivery")
	b.ReportMetric(float64(now.bytes-s.bytes)/float64(updates*nodes), "server-B/delivery")
}

// allocsProfile writes this process's allocations so far to
// $BRAMBLE_BENCH_PPROF_DIR/name.allocs.pprof when that is set: one before
// and one after the timed part give its allocations (pprof -base). It
// collects first, since the profile counts up to the last collection, so
// the collections of a profiled run are not those of a plain one.
func allocsProfile(b *testing.B, name string) {
	dir := os.Getenv("BRAMBLE_BENCH_PPROF_DIR")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, name+".allocs.pprof"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// execTrace records an execution trace of this process into
// $BRAMBLE_BENCH_TRACE_DIR/name.trace when that is set; the returned
// function stops it. markUpdate puts a "fanout" log line in it (a no-op
// without a trace), so that `go tool trace -d=parsed` shows where each
// update began.
func execTrace(b *testing.B, name string) (stop func()) {
	dir := os.Getenv("BRAMBLE_BENCH_TRACE_DIR")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, name+".trace"))
	if err != nil {
		b.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		b.Fatal(err)
	}
	return func() { trace.Stop(); f.Close() }
}

func markUpdate(msg string) { trace.Log(context.Background(), "fanout", msg) }
