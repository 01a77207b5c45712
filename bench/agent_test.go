package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd"
	tasks "github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/api/types/task"
	"github.com/containerd/containerd/namespaces"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// benchImage is the busybox image the agent benchmarks import from a
// tarball in the agent's images folder.
const benchImage = "docker.io/library/busybox:bench-agent"

// agentSetup is a server, a private containerd and one joined agent
// with the busybox image present.
type agentSetup struct {
	s        *cluster.Server
	d        *runtimetest.Daemon
	a        *cluster.Agent
	ns, node string
}

func startAgentSetup(b *testing.B, ns, node string) *agentSetup {
	b.Helper()
	return startAgentSetupFrom(b, cluster.CopyBinaries(b), ns, node)
}

// startAgentSetupFrom is startAgentSetup with the agent run from bin.
func startAgentSetupFrom(b *testing.B, bin, ns, node string) *agentSetup {
	b.Helper()
	d := cluster.PrivateContainerd(b)
	s := cluster.StartServer(b)
	a := cluster.StartAgentFrom(b, bin, s, d, ns, "--token", cluster.JoinToken(b, s), "--node-name", node)
	a.WaitReady(b, s, node)
	a.ImportBusybox(b, d, ns, benchImage)
	return &agentSetup{s: s, d: d, a: a, ns: ns, node: node}
}

func benchPod(name, node string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: default
spec:
  nodeName: ` + node + `
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: ` + benchImage + `
    imagePullPolicy: Never
    command: ["sleep", "3600"]
`
}

// BenchmarkAgentIdleMemory runs 10 busybox pods on one agent, lets it
// idle 60 s (5 s with -short), and reads VmRSS and RssAnon of the agent
// process and the CPU time it used while idle; also the summed RssAnon of
// the log-driver processes (one per container, children of the shims),
// which count against the node too. It measures both builds of the
// binary: the agent-only one install.sh puts on an agent, and the full one
// (a server's, or an agent installed with INSTALL_BRAMBLE_FULL). The agent
// runs from its own copy of the binaries, as on a node (see
// cluster.CopyBinaries). Each iteration is one more idle period and one
// sample; run it with -benchtime 1x. Budget: agent VmRSS <= 30 MiB,
// RssAnon <= 10 MiB.
func BenchmarkAgentIdleMemory(b *testing.B) {
	b.Run("build=agent-only", func(b *testing.B) { agentIdleMemory(b, cluster.CopyAgentOnlyBinaries(b)) })
	b.Run("build=full", func(b *testing.B) { agentIdleMemory(b, cluster.CopyBinaries(b)) })
}

// agentIdleMemory is BenchmarkAgentIdleMemory with the agent run from bin.
func agentIdleMemory(b *testing.B, bin string) {
	idle := 60 * time.Second
	if testing.Short() {
		idle = 5 * time.Second
	}
	e := startAgentSetupFrom(b, bin, "bramble-bench-idle", "pi-bench-idle")
	var manifest strings.Builder
	for i := 0; i < 10; i++ {
		manifest.WriteString(benchPod(fmt.Sprintf("idle-%d", i), e.node) + "---\n")
	}
	if _, stderr, err := e.s.Apply(manifest.String()); err != nil {
		b.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	cluster.WaitFor(b, 120*time.Second, func() bool { return cluster.RunningTasks(b, e.d, e.ns) == 10 },
		"10 containers to run in containerd")
	cluster.WaitFor(b, 60*time.Second, func() bool {
		out, _, err := e.s.Kubectl("get", "pods", "-o", "jsonpath={.items[*].status.phase}")
		return err == nil && strings.Count(out, "Running") == 10
	}, "kubectl get pods to show 10 Running")
	b.ResetTimer()
	var rss, anon, drivers, n float64
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		before := procCPU(b, e.a.PID())
		time.Sleep(idle)
		cpu += procCPU(b, e.a.PID()) - before
		r, a := procMemory(b, e.a.PID())
		saveProc(b, e.a.PID(), "agent")
		rss, anon = rss+r, anon+a
		ld, count := logDriverAnon(b, e.a.Bin())
		drivers, n = drivers+ld, n+float64(count)
	}
	b.ReportMetric(rss/1024/float64(b.N), "VmRSS-MiB")
	b.ReportMetric(anon/1024/float64(b.N), "RssAnon-MiB")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "idle-cpu-ms")
	b.ReportMetric(drivers/1024/float64(b.N), "logdrivers-RssAnon-MiB")
	b.ReportMetric(n/float64(b.N), "logdrivers")
}

// logDriverAnon sums RssAnon (KiB) of the `bramble-log container-log`
// processes (the small driver beside the agent's binary bin) whose parent
// is a shim.
func logDriverAnon(tb testing.TB, bin string) (anon float64, count int) {
	tb.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		tb.Fatal(err)
	}
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		args := strings.Split(string(raw), "\x00")
		if err != nil || len(args) < 2 || args[0] != filepath.Join(filepath.Dir(bin), "bramble-log") || args[1] != "container-log" {
			continue
		}
		if !parentIsShim(dir) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(dir))
		_, a := procMemory(tb, pid)
		anon += a
		count++
	}
	return anon, count
}

// parentIsShim reports whether the parent of /proc/PID is a containerd shim.
func parentIsShim(dir string) bool {
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return false
	}
	// Fields after the ")" that ends comm: state, ppid, ...
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		return false
	}
	comm, err := os.ReadFile("/proc/" + fields[1] + "/comm")
	return err == nil && strings.HasPrefix(string(comm), "containerd-shim")
}

// BenchmarkApplyToRunning times `kubectl apply -f` of a Pod bound to the
// agent's node (image present) to its container task RUNNING in
// containerd, polled every 20 ms; each pod is deleted (untimed) before
// the next. Budget: p50 <= 1 s.
func BenchmarkApplyToRunning(b *testing.B) {
	e := startAgentSetup(b, "bramble-bench-apply", "pi-bench-apply")
	c, err := containerd.New(e.d.Address)
	if err != nil {
		b.Fatalf("connect to containerd: %v", err)
	}
	defer c.Close()
	ctx := namespaces.WithNamespace(context.Background(), e.ns)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		name := fmt.Sprintf("apply-%d", i)
		lat = append(lat, e.applyToRunning(b, ctx, c, name))
		b.StopTimer()
		e.s.MustKubectl("delete", "pod", name, "--wait=false")
		cluster.WaitFor(b, 60*time.Second, func() bool {
			return strings.TrimSpace(cluster.Ctr(b, e.d, e.ns, "containers", "ls", "-q")) == ""
		}, "the pod's container to be removed after kubectl delete")
		b.StartTimer()
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(ms(lat[(len(lat)-1)/2]), "p50-ms")
	b.ReportMetric(ms(lat[(len(lat)*99-1)/100]), "p99-ms")
}

// applyToRunning applies one pod and polls containerd until a task runs.
func (e *agentSetup) applyToRunning(b *testing.B, ctx context.Context, c *containerd.Client, name string) time.Duration {
	b.Helper()
	begin := time.Now()
	applied := make(chan error, 1)
	go func() {
		_, stderr, err := e.s.Apply(benchPod(name, e.node))
		if err != nil {
			err = fmt.Errorf("kubectl apply %s: %w: %s", name, err, stderr)
		}
		applied <- err
	}()
	deadline := begin.Add(60 * time.Second)
	for !taskRunning(b, ctx, c) {
		if time.Now().After(deadline) {
			b.Fatalf("pod %s: no RUNNING task 60s after kubectl apply", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(begin)
	if err := <-applied; err != nil {
		b.Fatal(err)
	}
	return took
}

func taskRunning(b *testing.B, ctx context.Context, c *containerd.Client) bool {
	b.Helper()
	resp, err := c.TaskService().List(ctx, &tasks.ListTasksRequest{})
	if err != nil {
		b.Fatalf("list containerd tasks: %v", err)
	}
	for _, t := range resp.Tasks {
		if t.Status == task.Status_RUNNING {
			return true
		}
	}
	return false
}
