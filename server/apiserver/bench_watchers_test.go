package apiserver

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWatchers200Creates2000 measures pod creates from 32 clients while
// 200 watchers follow every pod in the namespace (-short: 20 and 200), all
// watchers sharing one HTTP/2 connection:
//
//	go test -run '^$' -bench Watchers200Creates2000 -benchtime 1x ./server/apiserver/
//
// cpu-ms/create is this process's CPU (server, creators and watchers
// alike) per create, which a loaded machine does not inflate as it does
// the wall-clock creates/s; load1 is the load average at the start.
func BenchmarkWatchers200Creates2000(b *testing.B) { benchWatchersCreates(b, false) }

// BenchmarkWatchers200ConnsCreates2000 is the same with one connection
// per watcher, as 200 kubectl processes would have.
func BenchmarkWatchers200ConnsCreates2000(b *testing.B) { benchWatchersCreates(b, true) }

func benchWatchersCreates(b *testing.B, connEach bool) {
	watchers, creates := 200, 2000
	if testing.Short() {
		watchers, creates = 20, 200
	}
	for i := 0; i < b.N; i++ {
		e := newTestEnv(b)
		seen := startWatchers(b, e, watchers, connEach)
		load, cpu := loadAverage(b), processCPU(b)
		start := time.Now()
		createPods(b, e, creates)
		elapsed := time.Since(start)
		waitSeen(b, seen, int64(watchers*creates))
		cpu = processCPU(b) - cpu
		b.ReportMetric(float64(creates)/elapsed.Seconds(), "creates/s")
		b.ReportMetric(time.Since(start).Seconds(), "s-all-delivered")
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(creates), "cpu-ms/create")
		b.ReportMetric(load, "load1")
	}
}

// startWatchers opens n pod watches over HTTP/2 (on one connection, or
// one each) and counts ADDED events.
func startWatchers(b *testing.B, e *testEnv, n int, connEach bool) *atomic.Int64 {
	b.Helper()
	seen := &atomic.Int64{}
	shared := benchClient(e, true)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	ready := make(chan struct{}, n)
	for w := 0; w < n; w++ {
		c := shared
		if connEach {
			c = benchClient(e, true)
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+podPath+"?watch=1&resourceVersion=1", nil)
		req.Header.Set("Authorization", "Bearer admin-token")
		go countLines(c, req, seen, ready)
	}
	for w := 0; w < n; w++ {
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			b.Fatalf("only %d of %d watches started", w, n)
		}
	}
	return seen
}

func countLines(c *http.Client, req *http.Request, seen *atomic.Int64, ready chan<- struct{}) {
	resp, err := c.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	ready <- struct{}{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		seen.Add(1)
	}
}

func loadAverage(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		b.Fatal(err)
	}
	v, err := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	if err != nil {
		b.Fatalf("/proc/loadavg %q: %v", data, err)
	}
	return v
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
