package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
)

// TestEmbeddedAgent runs `bramble server` with its embedded agent (no
// --disable-agent) on a private containerd: the server's own machine
// becomes a Ready node that runs pods. On it: a crashing container backs
// off with growing delays into CrashLoopBackOff, a memory limit lands in
// the container's cgroup, and a container over its limit is OOMKilled.
func TestEmbeddedAgent(t *testing.T) {
	const node, ns = "pi-server", "bramble-e2e-embedded"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerWithAgent(t, d, ns, node)
	waitNodeReady(t, s, node)
	cluster.ImportBusybox(t, s.DataDir, d, ns, "docker.io/library/busybox:e2e-agent")
	s.MustKubectl("create", "namespace", "work")

	t.Run("group", func(t *testing.T) {
		t.Run("crash loop", func(t *testing.T) { t.Parallel(); testCrashLoopBackOff(t, s, node) })
		t.Run("memory limit", func(t *testing.T) { t.Parallel(); testMemoryLimit(t, s, d, ns, node) })
		t.Run("oom killed", func(t *testing.T) { t.Parallel(); testOOMKilled(t, s, node) })
		t.Run("job retries", func(t *testing.T) { t.Parallel(); testJobRetries(t, s) })
	})
	if t.Failed() {
		t.Logf("server and embedded agent output:\n%s", s.Logs())
	}
}

func waitNodeReady(t *testing.T, s *cluster.Server, node string) {
	t.Helper()
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "node", node, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && out == "True"
	}, "the embedded agent's Node to be Ready")
}

// busyboxPod is a pod on node running command in one container.
func busyboxPod(name, node, restart, resources, command string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
  namespace: work
spec:
  nodeName: %[2]s
  restartPolicy: %[3]s
  terminationGracePeriodSeconds: 1
  containers:
  - name: %[1]s
    image: docker.io/library/busybox:e2e-agent
    imagePullPolicy: Never
    command: ["sh", "-c", %[5]q]
    resources: %[4]s
`, name, node, restart, resources, command)
}

// testCrashLoopBackOff watches a container that exits at once: its restart
// count rises, the pod shows CrashLoopBackOff between attempts, and each
// wait is longer than the one before.
func testCrashLoopBackOff(t *testing.T, s *cluster.Server, node string) {
	if _, stderr, err := s.Apply(busyboxPod("crasher", node, "Always", "{}", "echo crashing; exit 3")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	var restartedAt []time.Time // when restartCount reached 1, 2, 3
	sawBackOff := false
	cluster.WaitFor(t, 120*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "crasher", "-n", "work", "-o",
			`jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].state.waiting.reason} {.status.containerStatuses[0].lastState.terminated.exitCode}`)
		if err != nil {
			return false
		}
		f := strings.Fields(out)
		if len(f) == 0 {
			return false
		}
		n, _ := strconv.Atoi(f[0])
		for len(restartedAt) < n && len(restartedAt) < 3 {
			restartedAt = append(restartedAt, time.Now())
		}
		if len(f) == 3 && f[1] == "CrashLoopBackOff" && f[2] == "3" {
			sawBackOff = true
		}
		return len(restartedAt) >= 3 && sawBackOff
	}, "the crashing container to be restarted 3 times and show CrashLoopBackOff with exit code 3")
	first, second := restartedAt[1].Sub(restartedAt[0]), restartedAt[2].Sub(restartedAt[1])
	t.Logf("delays between restarts: %s, then %s", first.Round(time.Millisecond), second.Round(time.Millisecond))
	if second < first*3/2 {
		t.Errorf("back-off did not grow: %s between restarts 1 and 2, %s between 2 and 3; want the second about twice the first", first, second)
	}
	if out := s.MustKubectl("logs", "crasher", "-n", "work", "--previous"); strings.TrimSpace(out) != "crashing" {
		t.Errorf("kubectl logs --previous: got %q, want crashing", out)
	}
	if out := s.MustKubectl("get", "pod", "crasher", "-n", "work"); !strings.Contains(out, "CrashLoopBackOff") && !strings.Contains(out, "Error") {
		t.Errorf("kubectl get pod: got %q, want the STATUS column to show the crash loop", out)
	}
}

// testMemoryLimit checks a 48Mi limit lands in the container's memory
// cgroup as containerd's own view of the task reports it.
func testMemoryLimit(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, ns, node string) {
	if _, stderr, err := s.Apply(busyboxPod("limited", node, "Always", "{limits: {memory: 48Mi, cpu: 250m}}", "sleep 3600")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "limited", "-n", "work", "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Running"
	}, "the limited pod to run")
	pid := cluster.TaskPID(t, d, ns, "limited")
	limit := readCgroupFile(t, pid, "memory", "memory.limit_in_bytes")
	if limit != strconv.Itoa(48<<20) {
		t.Errorf("memory.limit_in_bytes of the container's cgroup: got %s, want %d", limit, 48<<20)
	}
	if quota := readCgroupFile(t, pid, "cpu", "cpu.cfs_quota_us"); quota != "25000" {
		t.Errorf("cpu.cfs_quota_us of the container's cgroup: got %s, want 25000 (250m of a 100ms period)", quota)
	}
}

// readCgroupFile reads file of the cgroup v1 controller pid belongs to.
func readCgroupFile(t *testing.T, pid int, controller, file string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == controller {
				v, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", parts[1], parts[2], file))
				if err != nil {
					t.Fatalf("cgroup of pid %d: %v", pid, err)
				}
				return strings.TrimSpace(string(v))
			}
		}
	}
	t.Fatalf("pid %d is in no %s cgroup (cgroup v1 expected): %s", pid, controller, b)
	return ""
}

// testOOMKilled runs a container that fills a shell variable past its
// 32Mi limit: the kernel kills it and the pod says OOMKilled.
func testOOMKilled(t *testing.T, s *cluster.Server, node string) {
	cmd := `x=$(head -c 134217728 /dev/zero | tr '\0' a); echo survived ${#x}`
	if _, stderr, err := s.Apply(busyboxPod("hog", node, "Never", "{limits: {memory: 32Mi}}", cmd)); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "hog", "-n", "work", "-o",
			`jsonpath={.status.phase} {.status.containerStatuses[0].state.terminated.reason}`)
		return err == nil && out == "Failed OOMKilled"
	}, "the over-limit container to be OOMKilled and the pod Failed")
	if out := s.MustKubectl("get", "pod", "hog", "-n", "work"); !strings.Contains(out, "OOMKilled") {
		t.Errorf("kubectl get pod hog: got %q, want STATUS OOMKilled", out)
	}
}

// TestEmbeddedAgentWithoutContainerd: a server whose agent cannot reach
// containerd stops, naming the flag to fix and the way to run without one.
func TestEmbeddedAgentWithoutContainerd(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(cluster.Bin, "server", "--data-dir", filepath.Join(dir, "data"),
		"--https-listen-port", strconv.Itoa(porttest.Free(t)), "--mqtt-listen-port", strconv.Itoa(porttest.Free(t)),
		"--bind-address", "127.0.0.1", "--write-kubeconfig", filepath.Join(dir, "kc"), "--config", filepath.Join(dir, "none.yaml"),
		"--container-runtime-endpoint", filepath.Join(dir, "no-containerd.sock"))
	if err := os.WriteFile(filepath.Join(dir, "none.yaml"), []byte("node-name: lonely\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the server ran on for 60 s without containerd:\n%s", out)
	}
	if err == nil {
		t.Fatalf("the server exited 0 without containerd:\n%s", out)
	}
	for _, want := range []string{"--container-runtime-endpoint", "--disable-agent"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output does not name %s:\n%s", want, out)
		}
	}
}

// testJobRetries runs a Job whose container fails twice before it
// succeeds (it counts its runs in a hostPath folder): the Job controller
// retries with back-off, the scheduler places each pod on the embedded
// agent's node, and the Job completes with two failures and one success.
func testJobRetries(t *testing.T, s *cluster.Server) {
	dir := t.TempDir()
	manifest := fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata: {name: flaky, namespace: work}
spec:
  backoffLimit: 4
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      volumes: [{name: state, hostPath: {path: %q}}]
      containers:
      - name: flaky
        image: docker.io/library/busybox:e2e-agent
        imagePullPolicy: Never
        volumeMounts: [{name: state, mountPath: /state}]
        command: ["sh", "-c", "echo run >> /state/runs; test $(wc -l < /state/runs) -ge 3"]
`, dir)
	if _, stderr, err := s.Apply(manifest); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	if out, stderr, err := s.Kubectl("wait", "-n", "work", "--for=condition=complete", "job/flaky", "--timeout=150s"); err != nil {
		t.Fatalf("kubectl wait --for=condition=complete job/flaky: %v\n%s%s", err, out, stderr)
	}
	got := s.MustKubectl("get", "job", "flaky", "-n", "work", "-o", "jsonpath={.status.failed} {.status.succeeded}")
	if got != "2 1" {
		t.Errorf("job flaky: got failed/succeeded %q, want \"2 1\"", got)
	}
	runs, err := os.ReadFile(filepath.Join(dir, "runs"))
	if err != nil || strings.Count(string(runs), "run") != 3 {
		t.Errorf("the job's container ran %d times (%v), want 3", strings.Count(string(runs), "run"), err)
	}
	if out := s.MustKubectl("get", "jobs", "-n", "work"); !strings.Contains(out, "1/1") {
		t.Errorf("kubectl get jobs: want COMPLETIONS 1/1, got:\n%s", out)
	}
}
