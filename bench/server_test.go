// Package bench holds benchmark drivers that run the real bramble binary.
// Run them with, for example:
//
//	go test -run '^$' -bench 'StartToReady|IdleMemory' -benchtime 5x ./bench/
//
// Results go in BENCHMARKS.md with the command and the machine.
package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bramble-bench-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := cluster.Build(dir, false); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// BenchmarkStartToReady measures exec of `bramble server` to the first 200
// from /readyz: first start on an empty data dir (creates the CA and the
// datastore), and a restart on an existing one. Budget: <= 1 s.
func BenchmarkStartToReady(b *testing.B) {
	var first, again time.Duration
	for i := 0; i < b.N; i++ {
		s := cluster.StartServer(b)
		first += s.LastStart
		s.Stop()
		again += s.Start()
		s.Stop()
	}
	b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "ms-first-start")
	b.ReportMetric(float64(again.Milliseconds())/float64(b.N), "ms-restart")
}

// BenchmarkIdleMemory reads VmRSS and RssAnon of a server with the agent
// disabled after 60 s idle (1 s with -short). Budget: VmRSS <= 40 MiB,
// RssAnon <= 15 MiB.
func BenchmarkIdleMemory(b *testing.B) {
	idle := 60 * time.Second
	if testing.Short() {
		idle = time.Second
	}
	for i := 0; i < b.N; i++ {
		s := cluster.StartServer(b)
		s.MustKubectl("get", "namespaces") // one real request, as a user would make
		time.Sleep(idle)
		rss, anon := procMemory(b, s.PID())
		saveProc(b, s.PID(), "server")
		b.ReportMetric(rss/1024, "VmRSS-MiB")
		b.ReportMetric(anon/1024, "RssAnon-MiB")
		s.Stop()
	}
}

// saveProc copies /proc/PID/status and smaps of the measured process into
// $BRAMBLE_BENCH_PROC_DIR as name.status and name.smaps, when that is set,
// to tell afterwards which mappings held the memory.
func saveProc(tb testing.TB, pid int, name string) {
	tb.Helper()
	dir := os.Getenv("BRAMBLE_BENCH_PROC_DIR")
	if dir == "" {
		return
	}
	for _, f := range []string{"status", "smaps"} {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + f)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name+"."+f), raw, 0o644)
		}
		if err != nil {
			tb.Fatalf("save %s of %d: %v", f, pid, err)
		}
	}
}

// procMemory returns VmRSS and RssAnon in KiB from /proc/PID/status.
func procMemory(tb testing.TB, pid int) (rss, anon float64) {
	tb.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		switch k {
		case "VmRSS":
			rss = n
		case "RssAnon":
			anon = n
		}
	}
	return rss, anon
}
