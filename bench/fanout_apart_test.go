package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/bench/minicluster"
)

// BenchmarkConfigMapFanout1000Apart is BenchmarkConfigMapFanout1000 with
// the 1,000 hollow agents where real ones are: not in the server's
// process. They run in a bench/hollow child pinned to CPU 1 (taskset), the
// server (this process) is pinned to CPU 0 with GOMAXPROCS 1: the server
// gets one core instead of sharing two with its agents, which is stricter
// for it, and the agents' MQTT clients, decoding and applying no longer
// count against it. Each agent still receives, checks (Prev) and applies
// every update through the real client; the child prints each receipt's
// wall-clock time, read here on the same clock. Same measure, updates and
// pacing as the in-process benchmark. It reports the CPU each side spent
// per update (server-cpu-ms/update, agents-cpu-ms/update): the agents'
// core does for 1,000 nodes what each node's own CPU does in a fleet, so
// when it is the busier one, the tail of the receipts is theirs. -short
// uses 100 agents.
//
//	go test -run '^$' -bench ConfigMapFanout1000Apart -benchtime 1x -timeout 30m ./bench/
func BenchmarkConfigMapFanout1000Apart(b *testing.B) {
	nodes := 1000
	if testing.Short() {
		nodes = 100
	}
	if runtime.NumCPU() < 2 {
		b.Fatalf("this benchmark pins the server and its agents to a core each: need 2 CPUs, have %d", runtime.NumCPU())
	}
	c, err := minicluster.Start(context.Background(), minicluster.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Stop()
	defer pinTo(b, "0-"+strconv.Itoa(runtime.NumCPU()-1), runtime.GOMAXPROCS(0))
	pinTo(b, "0", 1)
	rec := &revReceipts{}
	h := startReporting(b, c, nodes, rec)
	defer h.stop()
	cm := setUpApart(b, c, h, rec, nodes)
	load, cpu0, agents0 := loadAverage(b), processCPU(b), childCPU(b, h.cmd.Process.Pid)
	stopProfile, stopTrace := cpuProfile(b, "fanout-apart"), execTrace(b, "fanout-apart")
	allocsProfile(b, "fanout-apart-before")
	stats := readFanStats()
	b.ResetTimer()
	var all []time.Duration
	var split gcSplit
	var mark gcMark
	var got []time.Duration
	for i := range 20 * b.N {
		time.Sleep(settle)
		if i > 0 {
			split.add(b, rec, mark, got)
		}
		time.Sleep(200*time.Millisecond - settle)
		markUpdate(fmt.Sprint("update ", i))
		mark = markGCs(rec)
		cm, got = updateAndWait(b, c, cm, rec, nodes, fmt.Sprint(i), time.Minute)
		b.Logf("update %d (rv %s): p50 %.1f ms, max %.1f ms", i, cm.ResourceVersion, ms(got[len(got)/2]), ms(got[len(got)-1]))
		all = append(all, got...)
	}
	time.Sleep(settle)
	split.add(b, rec, mark, got)
	b.StopTimer()
	stopTrace()
	stopProfile()
	allocsProfile(b, "fanout-apart-after")
	reportLatencies(b, all)
	stats.report(b, 20*b.N, nodes)
	split.report(b, 20*b.N)
	b.ReportMetric(ms(processCPU(b)-cpu0)/float64(20*b.N), "server-cpu-ms/update")
	b.ReportMetric(ms(childCPU(b, h.cmd.Process.Pid)-agents0)/float64(20*b.N), "agents-cpu-ms/update")
	b.ReportMetric(load, "load1")
}

// pinTo runs every thread of this process on cpus (taskset's list) and
// sets GOMAXPROCS; it returns nothing to undo: call it again.
func pinTo(b *testing.B, cpus string, procs int) {
	b.Helper()
	out, err := exec.Command("taskset", "-a", "-p", "-c", cpus, strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		b.Fatalf("taskset -a -p -c %s: %v\n%s", cpus, err, out)
	}
	runtime.GOMAXPROCS(procs)
}

// hollowEnv is the agents' child's environment: this process's, with
// GOGC=$BRAMBLE_BENCH_HOLLOW_GOGC when that is set, so that the server's
// collector (this process's GOGC) and the agents' can be set apart:
//
//	GOGC=off BRAMBLE_BENCH_HOLLOW_GOGC=100 X.bench ...   # the server's off only
//	BRAMBLE_BENCH_HOLLOW_GOGC=off X.bench ...            # the agents' off only
func hollowEnv() []string {
	env := os.Environ()
	if v, ok := os.LookupEnv("BRAMBLE_BENCH_HOLLOW_GOGC"); ok {
		env = append(env, "GOGC="+v) // the last one wins in os/exec
	}
	return env
}

// startReporting runs nodes hollow agents (fan-0 ..) in a child pinned to
// the last CPU, reporting their receipts of ConfigMap default/shared to
// rec, and waits until all of them started.
func startReporting(b *testing.B, c *minicluster.Cluster, nodes int, rec *revReceipts) *hollowProc {
	b.Helper()
	cpu := strconv.Itoa(runtime.NumCPU() - 1)
	args := []string{"-c", cpu, buildHollow(b), "-server", c.URL, "-token", c.Token, "-nodes", strconv.Itoa(nodes),
		"-prefix", "fan", "-heartbeat", "10s", "-state-dir", b.TempDir(), "-log-level", "warn",
		"-report-receipts", "configmaps/default/shared"}
	h := &hollowProc{cmd: exec.Command("taskset", args...), logs: &lockedBuffer{}, done: make(chan struct{})}
	h.cmd.Stderr = h.logs
	h.cmd.Env = hollowEnv()
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		b.Fatalf("start hollow: %v", err)
	}
	running := make(chan struct{})
	go func() { rec.read(stdout, running); _ = h.cmd.Wait(); close(h.done) }()
	select {
	case <-running:
	case <-h.done:
		b.Fatalf("hollow exited before its nodes ran:\n%s", h.logs)
	case <-time.After(10 * time.Minute):
		b.Fatalf("hollow nodes not running after 10 minutes:\n%s", h.logs)
	}
	return h
}

// setUpApart creates the ConfigMap and one pod per node using it, waits
// for the cluster to stop writing, then updates the ConfigMap until one
// update reaches every node (a node's first view may come by relist,
// which reports no receipt).
func setUpApart(b *testing.B, c *minicluster.Cluster, h *hollowProc, rec *revReceipts, nodes int) *corev1.ConfigMap {
	b.Helper()
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("fan-%d", i)
	}
	cm := createFanout(b, c, names)
	waitQuiet(b, c)
	for try := 0; ; try++ {
		next, got := updateAndWait(b, c, cm, rec, nodes, "warm-up", 0)
		cm = next
		if len(got) == nodes {
			return cm
		}
		if try == 20 {
			b.Fatalf("after 20 updates, the last reached %d of %d nodes:\n%s", len(got), nodes, h.logs)
		}
		waitQuiet(b, c)
	}
}

// updateAndWait updates the ConfigMap and returns each node's latency,
// sorted. With a timeout it fails unless every node received the update;
// without one it waits 30 s and returns what arrived.
func updateAndWait(b *testing.B, c *minicluster.Cluster, cm *corev1.ConfigMap, rec *revReceipts, nodes int,
	value string, timeout time.Duration) (*corev1.ConfigMap, []time.Duration) {
	b.Helper()
	cm = cm.DeepCopy()
	cm.Data["i"] = value
	ch := rec.expect(nodes)
	start := time.Now()
	out, err := c.Client.Update(context.Background(), cm)
	if err != nil {
		b.Fatal(err)
	}
	cm = out.(*corev1.ConfigMap)
	rv, err := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	rec.setRev(rv)
	wait := timeout
	if wait == 0 {
		wait = 30 * time.Second
	}
	select {
	case <-ch:
	case <-time.After(wait):
		if timeout != 0 {
			b.Fatalf("ConfigMap at resourceVersion %d reached %d of %d nodes in %s", rv, rec.count(), nodes, timeout)
		}
	}
	return cm, rec.take(start)
}
