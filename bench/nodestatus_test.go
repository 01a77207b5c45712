package bench

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// BenchmarkHeartbeats2000 measures the server while 2,000 hollow agents
// (one separate process) stay connected and heartbeat every 10 s: CPU of
// the server process over a window once every node is Ready (budget: 30 %
// of one core), and its VmRSS growth per connected agent. -short uses 200
// agents and a 20 s window.
//
//	go test -run '^$' -bench Heartbeats2000 -benchtime 1x -timeout 30m ./bench/
func BenchmarkHeartbeats2000(b *testing.B) {
	nodes, window := 2000, 2*time.Minute
	if testing.Short() {
		nodes, window = 200, 20*time.Second
	}
	for range b.N {
		s := startTarget(b)
		rss0, heap0, g0 := s.rss(b), heapBytes(), runtime.NumGoroutine()
		h := startHollow(b, s, nodes, 10*time.Second)
		s.waitReady(b, h, nodes, 10*time.Minute)
		time.Sleep(20 * time.Second) // let registration and first resyncs finish
		stopProfile := s.profile(b, "heartbeats")
		cpu0, beats0, t0 := s.cpu(b), s.heartbeats(), time.Now()
		time.Sleep(window)
		cpu, beats, elapsed := s.cpu(b)-cpu0, s.heartbeats()-beats0, time.Since(t0)
		stopProfile()
		rss := s.rss(b)
		if got := s.readyNodes(b); got != nodes {
			b.Fatalf("after the window: got %d Ready nodes, want %d\n%s", got, nodes, h.logs)
		}
		b.ReportMetric(100*cpu.Seconds()/elapsed.Seconds(), "%cpu")
		b.ReportMetric(float64(rss-rss0)/float64(nodes)/1024, "KiB-rss/agent")
		b.ReportMetric(float64(rss)/(1<<20), "MiB-rss")
		if s.inProcess != nil {
			b.ReportMetric(float64(beats)/elapsed.Seconds(), "heartbeats/s")
			b.ReportMetric(float64(runtime.NumGoroutine()-g0)/float64(nodes), "goroutines/agent")
			b.ReportMetric(float64(heapBytes()-heap0)/float64(nodes)/1024, "KiB-heap/agent")
		}
		h.stop()
		s.stop()
	}
}

// BenchmarkIdleDiskWrites100 measures the bytes the server process writes
// to storage while 100 hollow nodes stay connected and heartbeat every
// 10 s with nothing else happening, and extrapolates them to an hour
// (budget: 1 MiB/hour). -short uses a 60 s window instead of 5 minutes.
//
//	go test -run '^$' -bench IdleDiskWrites100 -benchtime 1x -timeout 30m ./bench/
func BenchmarkIdleDiskWrites100(b *testing.B) {
	const nodes = 100
	window := 5 * time.Minute
	if testing.Short() {
		window = time.Minute
	}
	for range b.N {
		s := startTarget(b)
		start := s.writeBytes(b)
		h := startHollow(b, s, nodes, 10*time.Second)
		s.waitReady(b, h, nodes, 5*time.Minute)
		time.Sleep(30 * time.Second) // registration done, WAL checkpointed
		w0, t0 := s.writeBytes(b), time.Now()
		b.ReportMetric(float64(w0-start)/1024, "KiB-written-joining")
		time.Sleep(window)
		written, elapsed := s.writeBytes(b)-w0, time.Since(t0)
		if got := s.readyNodes(b); got != nodes {
			b.Fatalf("after the window: got %d Ready nodes, want %d\n%s", got, nodes, h.logs)
		}
		b.ReportMetric(float64(written)/1024, "KiB-written")
		b.ReportMetric(float64(written)*float64(time.Hour)/float64(elapsed)/1024, "KiB/hour")
		h.stop()
		s.stop()
	}
}

// heapBytes is the live heap of this process after a GC (meaningful for
// the in-process server only).
func heapBytes() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}
