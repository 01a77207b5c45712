package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// target is the server a benchmark measures: by default the real `bramble
// server` process; with BRAMBLE_BENCH_SERVER=inprocess the same assembly
// (server.Start, through bench/minicluster) in this test process, which
// adds in-process statistics and CPU profiles. Either way the hollow agents
// run in a process of their own, so what is measured is the server alone.
// Call stop when done (it also runs at cleanup).
type target struct {
	url, token, kubeconfig string
	pid                    int // the process to measure
	inProcess              *minicluster.Cluster
	stop                   func()
}

func startTarget(b testing.TB) *target {
	b.Helper()
	if os.Getenv("BRAMBLE_BENCH_SERVER") != "inprocess" {
		s := cluster.StartServer(b)
		token, err := os.ReadFile(filepath.Join(s.DataDir, "server", "token"))
		if err != nil {
			b.Fatalf("read the server's join token: %v", err)
		}
		return &target{url: s.URL(), token: strings.TrimSpace(string(token)), kubeconfig: s.Kubeconfig, pid: s.PID(), stop: s.Kill}
	}
	c, err := minicluster.Start(context.Background(), minicluster.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Stop)
	return &target{url: c.URL, token: c.Token, kubeconfig: c.Kubeconfig, pid: os.Getpid(), inProcess: c, stop: c.Stop}
}

// readyNodes counts the Nodes whose Ready condition is True, over REST.
func (s *target) readyNodes(b testing.TB) int {
	b.Helper()
	resp := cluster.NewClient(b, s.kubeconfig).Do("GET", "/api/v1/nodes", "", nil)
	if resp.Code != 200 {
		b.Fatalf("list nodes: %d %s", resp.Code, resp.Body)
	}
	var list struct {
		Items []struct {
			Status struct {
				Conditions []struct{ Type, Status string } `json:"conditions"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal(resp.Body, &list); err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, it := range list.Items {
		for _, c := range it.Status.Conditions {
			if c.Type == "Ready" && c.Status == "True" {
				n++
			}
		}
	}
	return n
}

// waitReady waits until want Nodes are Ready, failing early when the
// hollow process h exits.
func (s *target) waitReady(b testing.TB, h *hollowProc, want int, timeout time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := s.readyNodes(b)
		if got >= want {
			return
		}
		select {
		case <-h.done:
			b.Fatalf("the hollow agents exited with %d of %d nodes Ready:\n%s", got, want, h.logs)
		default:
		}
		if time.Now().After(deadline) {
			b.Fatalf("after %s: got %d Ready nodes, want %d\n%s", timeout, got, want, h.logs)
		}
		time.Sleep(time.Second)
	}
}

// heartbeats counts the heartbeats node status took in (in process only).
func (s *target) heartbeats() uint64 {
	if s.inProcess == nil {
		return 0
	}
	return s.inProcess.Monitor.Stats().Heartbeats
}

// cpu is the user+system CPU time the server process used so far.
func (s *target) cpu(b testing.TB) time.Duration {
	b.Helper()
	return procCPU(b, s.pid)
}

// procCPU is the user+system CPU time process pid used so far.
func procCPU(b testing.TB, pid int) time.Duration {
	b.Helper()
	fields := strings.Fields(readProc(b, pid, "stat"))
	// Fields 14 and 15 (utime, stime) in clock ticks of 1/100 s; the
	// command name (field 2) holds no spaces for our processes.
	utime, _ := strconv.ParseInt(fields[13], 10, 64)
	stime, _ := strconv.ParseInt(fields[14], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// writeBytes is what the server process sent to storage so far
// (/proc/PID/io write_bytes, counted when pages are dirtied).
func (s *target) writeBytes(b testing.TB) int64 {
	b.Helper()
	return procField(b, s.pid, "io", "write_bytes:")
}

// rss is the server's VmRSS in bytes (after a GC when in process).
func (s *target) rss(b testing.TB) int64 {
	b.Helper()
	if s.inProcess != nil {
		runtime.GC()
	}
	return procField(b, s.pid, "status", "VmRSS:") * 1024
}

func readProc(b testing.TB, pid int, file string) string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), file))
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// procField reads the number after name in /proc/PID/file.
func procField(b testing.TB, pid int, file, name string) int64 {
	b.Helper()
	for _, line := range strings.Split(readProc(b, pid, file), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			v, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			if err != nil {
				b.Fatalf("/proc/%d/%s %s: %v", pid, file, name, err)
			}
			return v
		}
	}
	b.Fatalf("/proc/%d/%s has no %s", pid, file, name)
	return 0
}

// profile writes a CPU profile of the in-process server from now until the
// returned func is called, then a heap profile, into
// $BRAMBLE_BENCH_PPROF_DIR (nothing when unset or with the binary server).
func (s *target) profile(b testing.TB, name string) (stop func()) {
	b.Helper()
	dir := os.Getenv("BRAMBLE_BENCH_PPROF_DIR")
	if dir == "" || s.inProcess == nil {
		return func() {}
	}
	cpu, err := os.Create(filepath.Join(dir, name+".cpu.pprof"))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		cpu.Close()
		runtime.GC()
		heap, err := os.Create(filepath.Join(dir, name+".heap.pprof"))
		if err != nil {
			b.Fatal(err)
		}
		defer heap.Close()
		if err := pprof.Lookup("heap").WriteTo(heap, 0); err != nil {
			b.Fatal(err)
		}
	}
}
