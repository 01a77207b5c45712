package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/join"
)

// Helpers for tests and benchmarks that run real agents: a private
// containerd, ctr, `bramble agent` processes and the busybox image.

// PrivateContainerd starts a containerd of the test's own, stopped when
// it ends. Missing containerd or runc fails the test.
func PrivateContainerd(t testing.TB) *runtimetest.Daemon {
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

// Ctr runs containerd's own CLI against the private daemon.
func Ctr(t testing.TB, d *runtimetest.Daemon, ns string, args ...string) string {
	t.Helper()
	return MustRun(t, "ctr", append([]string{"-a", d.Address, "-n", ns}, args...)...)
}

// RunningTasks counts the RUNNING tasks in containerd's view.
func RunningTasks(t testing.TB, d *runtimetest.Daemon, ns string) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(Ctr(t, d, ns, "tasks", "ls"), "\n") {
		if strings.Contains(line, "RUNNING") {
			n++
		}
	}
	return n
}

// StartServerWithAgent runs bramble server with its embedded agent on the
// private containerd d, in containerd namespace ns, as node.
func StartServerWithAgent(t testing.TB, d *runtimetest.Daemon, ns, node string, extraArgs ...string) *Server {
	t.Helper()
	args := []string{"--container-runtime-endpoint", d.Address, "--containerd-namespace", ns,
		"--node-name", node, "--node-ip", "127.0.0.1", "--heartbeat-interval", "2s", "--containerd-root", d.Root}
	args = append(args, evictionArgs(extraArgs)...)
	return startServerWith(t, append(args, logDirArgs(t.TempDir())...), extraArgs, func(dataDir string) []string { return append(networkArgs(t, dataDir), "--disable-overlay") })
}

// JoinToken is the server's default join token (server/token).
func JoinToken(t testing.TB, s *Server) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(s.DataDir, "server", "token"))
	if err != nil {
		t.Fatalf("default token: %v", err)
	}
	return strings.TrimSpace(string(raw))
}

// Agent is one running `bramble agent` process.
type Agent struct {
	DataDir string
	cmd     *exec.Cmd
	out     *syncBuffer
	done    chan struct{}
}

func agentArgs(s *Server, d *runtimetest.Daemon, dataDir, ns string) []string {
	args := []string{"agent", "--server", s.URL(), "--data-dir", dataDir, "--config", filepath.Join(dataDir, "config.yaml"),
		"--container-runtime-endpoint", d.Address, "--containerd-namespace", ns, "--heartbeat-interval", "2s",
		"--node-ip", "127.0.0.1", "--containerd-root", d.Root}
	return append(args, logDirArgs(dataDir)...)
}

// logDirArgs keeps an agent's container logs under dir, not /var/log.
func logDirArgs(dir string) []string {
	return []string{"--pod-log-dir", filepath.Join(dir, "log", "pods"), "--container-log-dir", filepath.Join(dir, "log", "containers")}
}

// agentDataDir is dir (a fresh one when "") with a config file (read through
// --config) that turns on debug logs.
func agentDataDir(t testing.TB, dir string) string {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("log-level: debug\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// StartAgent runs bramble agent against s and d in containerd namespace
// ns, on a fresh data dir, until the test ends. extra are more flags
// (--token, --node-name...). A data race it reports fails the test.
func StartAgent(t testing.TB, s *Server, d *runtimetest.Daemon, ns string, extra ...string) *Agent {
	t.Helper()
	return StartAgentFrom(t, Bin, s, d, ns, extra...)
}

// StartAgentFrom is StartAgent running the bramble binary at bin (see
// CopyBinaries).
func StartAgentFrom(t testing.TB, bin string, s *Server, d *runtimetest.Daemon, ns string, extra ...string) *Agent {
	t.Helper()
	return startAgent(t, nil, bin, "", s, d, ns, extra)
}

// StartAgentWithDataDir is StartAgent on dataDir (a small tmpfs, say),
// with the agent's default eviction thresholds (see TestEvictionHard).
func StartAgentWithDataDir(t testing.TB, dataDir string, s *Server, d *runtimetest.Daemon, ns string, extra ...string) *Agent {
	t.Helper()
	return startAgent(t, nil, Bin, dataDir, s, d, ns, extra)
}

// startAgent runs bin as an agent, under the command wrap when set
// (nsenter ...).
func startAgent(t testing.TB, wrap []string, bin, dataDir string, s *Server, d *runtimetest.Daemon, ns string, extra []string) *Agent {
	t.Helper()
	onMachineDisk := dataDir == ""
	dataDir = agentDataDir(t, dataDir)
	a := &Agent{DataDir: dataDir, out: &syncBuffer{}}
	argv := append(append(agentArgs(s, d, dataDir, ns), networkArgs(t, dataDir)...), extra...)
	if onMachineDisk {
		argv = append(argv, evictionArgs(extra)...)
	}
	if wrap == nil { // in the host's network namespace: no vxlan.1, routes or rules there
		argv = append(argv, "--disable-overlay")
	}
	if wrap != nil {
		argv = append(append(wrap[1:len(wrap):len(wrap)], bin), argv...)
		bin = wrap[0]
	}
	a.start(t, exec.Command(bin, argv...))
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

func (a *Agent) start(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	a.cmd, a.done = cmd, make(chan struct{})
	a.cmd.Stdout, a.cmd.Stderr = a.out, a.out
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("start bramble agent: %v", err)
	}
	done := a.done
	go func() { _ = cmd.Wait(); close(done) }()
}

// Restart starts the agent again on its data dir, without a token.
func (a *Agent) Restart(t testing.TB) {
	t.Helper()
	args := a.cmd.Args[1:]
	for i := range args {
		if args[i] == "--token" {
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	a.start(t, exec.Command(a.cmd.Path, args...))
}

// Stop sends SIGTERM and wants a clean exit.
func (a *Agent) Stop(t testing.TB) {
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

// TaskPID is the host PID of the running task of a container whose ID
// contains name (pod containers are named after their pod and container).
func TaskPID(t testing.TB, d *runtimetest.Daemon, ns, name string) int {
	t.Helper()
	for _, line := range strings.Split(Ctr(t, d, ns, "tasks", "ls"), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && strings.Contains(f[0], name) && f[2] == "RUNNING" {
			pid, err := strconv.Atoi(f[1])
			if err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no running task for %q in namespace %s", name, ns)
	return 0
}

// Bin is the path of the bramble binary the agent runs.
func (a *Agent) Bin() string { return a.cmd.Path }

// PID of the running agent process.
func (a *Agent) PID() int { return a.cmd.Process.Pid }

// Output is what the agent printed so far.
func (a *Agent) Output() string { return a.out.String() }

// WaitReady waits until the agent has joined and its Node is Ready.
func (a *Agent) WaitReady(t testing.TB, s *Server, node string) {
	t.Helper()
	WaitFor(t, 30*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(a.DataDir, "agent", join.CertFile))
		return err == nil
	}, "the agent to join")
	WaitFor(t, 30*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "node", node, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && out == "True"
	}, "the agent's Node to be Ready in kubectl get nodes")
}

// ImportBusybox drops an OCI tarball of the host's busybox, named image,
// into the agent's images folder and waits until containerd has it.
func (a *Agent) ImportBusybox(t testing.TB, d *runtimetest.Daemon, ns, image string) {
	t.Helper()
	ImportBusybox(t, a.DataDir, d, ns, image)
}

// RunAgentOnce runs an agent that is expected to exit on its own within
// 20 s (a bad token), and returns what it printed.
func RunAgentOnce(t testing.TB, s *Server, d *runtimetest.Daemon, ns string, extra ...string) (string, error) {
	t.Helper()
	dataDir := agentDataDir(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args := append(agentArgs(s, d, dataDir, ns), extra...)
	out, err := exec.CommandContext(ctx, Bin, args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("bramble agent still ran after 20s:\n%s", out)
	}
	return string(out), err
}
