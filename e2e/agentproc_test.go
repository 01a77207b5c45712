package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// Helpers for the agent's end-to-end tests: a private containerd, ctr,
// and bramble agent processes.

// privateContainerd starts a containerd of the test's own, stopped when
// it ends.
func privateContainerd(t testing.TB) *runtimetest.Daemon {
	t.Helper()
	if err := runtimetest.RequireBinaries(); err != nil {
		t.Fatalf("the agent tests need containerd and runc: %v", err)
	}
	d, err := runtimetest.StartContainerd(context.Background(), "")
	if err != nil {
		t.Fatalf("start private containerd: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Stop(); err != nil {
			t.Errorf("stop private containerd: %v", err)
		}
	})
	return d
}

// ctr runs containerd's own CLI against the private daemon.
func ctr(t testing.TB, d *runtimetest.Daemon, ns string, args ...string) string {
	t.Helper()
	return cluster.MustRun(t, "ctr", append([]string{"-a", d.Address, "-n", ns}, args...)...)
}

// runningTasks counts the RUNNING tasks in containerd's view.
func runningTasks(t testing.TB, d *runtimetest.Daemon, ns string) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(ctr(t, d, ns, "tasks", "ls"), "\n") {
		if strings.Contains(line, "RUNNING") {
			n++
		}
	}
	return n
}

func errorsAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// agentProc is one running `bramble agent`.
type agentProc struct {
	dataDir string
	cmd     *exec.Cmd
	out     *lockedBuffer
	done    chan struct{}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func agentArgs(s *cluster.Server, d *runtimetest.Daemon, dataDir, ns string) []string {
	return []string{"agent", "--server", s.URL(), "--data-dir", dataDir, "--config", filepath.Join(dataDir, "config.yaml"),
		"--container-runtime-endpoint", d.Address, "--containerd-namespace", ns, "--heartbeat-interval", "2s",
		"--node-ip", "127.0.0.1"}
}

// agentDataDir is a fresh data dir with a config file (read through
// --config) that turns on debug logs.
func agentDataDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("log-level: debug\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startAgent runs bramble agent on a fresh data dir until the test ends.
func startAgent(t testing.TB, s *cluster.Server, d *runtimetest.Daemon, ns string, extra ...string) *agentProc {
	t.Helper()
	dataDir := agentDataDir(t)
	a := &agentProc{dataDir: dataDir, out: &lockedBuffer{}, done: make(chan struct{})}
	a.cmd = exec.Command(cluster.Bin, append(agentArgs(s, d, dataDir, ns), extra...)...)
	a.cmd.Stdout, a.cmd.Stderr = a.out, a.out
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("start bramble agent: %v", err)
	}
	go func() { _ = a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() {
		select {
		case <-a.done:
		default:
			_ = a.cmd.Process.Kill()
			<-a.done
		}
		if strings.Contains(a.out.String(), "WARNING: DATA RACE") || t.Failed() || os.Getenv("AGENT_E2E_LOG") != "" {
			t.Logf("agent output:\n%s", a.out.String())
		}
		if strings.Contains(a.out.String(), "WARNING: DATA RACE") {
			t.Error("the agent reported a data race")
		}
	})
	return a
}

// restart starts the agent again on its data dir, without a token.
func (a *agentProc) restart(t testing.TB) {
	t.Helper()
	args := a.cmd.Args[1:]
	for i := range args {
		if args[i] == "--token" {
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	a.cmd = exec.Command(cluster.Bin, args...)
	a.cmd.Stdout, a.cmd.Stderr = a.out, a.out
	a.done = make(chan struct{})
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("restart bramble agent: %v", err)
	}
	cmd, done := a.cmd, a.done
	go func() { _ = cmd.Wait(); close(done) }()
}

// stop sends SIGTERM and wants a clean exit.
func (a *agentProc) stop(t testing.TB) {
	t.Helper()
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the agent did not stop within 30s of SIGTERM")
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("agent exit: got %d, want 0; output:\n%s", code, a.out.String())
	}
}

// runAgentOnce runs an agent that is expected to exit on its own.
func runAgentOnce(t testing.TB, s *cluster.Server, d *runtimetest.Daemon, token, node string) (string, error) {
	t.Helper()
	dataDir := agentDataDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args := append(agentArgs(s, d, dataDir, "bramble-e2e-"+node), "--token", token, "--node-name", node)
	out, err := exec.CommandContext(ctx, cluster.Bin, args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("bramble agent with a bad token still ran after 20s:\n%s", out)
	}
	return string(out), err
}
