// Package cluster runs real bramble processes for end-to-end tests and
// benchmark drivers: it builds the binary, starts servers on fresh data dirs,
// and drives them with the real kubectl and a raw HTTPS client. Nothing here
// is mocked: a missing kubectl or a binary that does not build fails loudly.
package cluster

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/internal/porttest"
)

// Bin is the path of the bramble binary Build made.
var Bin string

// built remembers Build's module root and race flag for AgentOnlyBin.
var built struct {
	root string
	race bool
}

// Build compiles ./cmd/bramble (found from the module root) into dir, checks
// that the real kubectl is present, and sets Bin. Call it from TestMain.
// With race set the binary has the race detector, and a server that reports
// a data race fails the test that ran it.
func Build(dir string, race bool) error {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return fmt.Errorf("find module root: %w", err)
	}
	Bin = filepath.Join(dir, "bramble")
	built.root, built.race = strings.TrimSpace(string(root)), race
	// bramble-log goes beside bramble, where the agent looks for its
	// small log driver, as hack/setup.sh and install.sh put it.
	for _, cmd := range []string{"bramble", "bramble-log"} {
		// The tag as hack/setup.sh and the release builds give it.
		args := []string{"build", "-tags=no_dynamic_plugins", "-o", filepath.Join(dir, cmd)}
		if race {
			args = append(args, "-race")
		} else {
			// Benchmarks measure the binary users run: stripped, as
			// hack/setup.sh and the release builds make it.
			args = append(args, "-trimpath", "-ldflags=-s -w")
		}
		build := exec.Command("go", append(args, "./cmd/"+cmd)...)
		build.Dir = strings.TrimSpace(string(root))
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build %s: %w", cmd, err)
		}
		if err := syncFile(filepath.Join(dir, cmd)); err != nil {
			return err
		}
	}
	if _, err := exec.LookPath(KubectlPath); err != nil {
		return fmt.Errorf("end-to-end tests need the real kubectl at %s: %w", KubectlPath, err)
	}
	return nil
}

// KubectlPath is the gcloud dispatcher that runs kubectl 1.27-1.33.
const KubectlPath = "/usr/bin/kubectl"

// Server is one running `bramble server` process.
type Server struct {
	t          testing.TB
	DataDir    string
	Port       int
	MQTTPort   int
	Kubeconfig string
	Home       string // HOME for kubectl, so its discovery cache is per test
	cmd        *exec.Cmd
	logs       *syncBuffer
	exited     chan struct{} // closed when the process has been waited for
	exitErr    error
	// LastStart is how long the last Start took, exec to /readyz.
	LastStart time.Duration
	// AgentArgs, when set, run the server's embedded agent with these
	// flags; otherwise the server starts with --disable-agent.
	AgentArgs []string
	// Host is the address the server listens on (default 127.0.0.1).
	Host string
	// ClusterCIDR is the --cluster-cidr every start passes unless its
	// flags name one: a random /20 of 10.128.0.0/9, so that test clusters
	// running at once do not share pod addresses.
	ClusterCIDR string
}

// StartServer runs bramble server on a fresh data dir and waits for /readyz.
func StartServer(t testing.TB, extraArgs ...string) *Server {
	t.Helper()
	return startServer(t, nil, extraArgs)
}

// StartServerOn is StartServer listening on host (an address of the
// test's own, such as a test Bridge's) instead of loopback.
func StartServerOn(t testing.TB, host string, extraArgs ...string) *Server {
	t.Helper()
	return startServer(t, nil, append([]string{"--bind-address", host, "--tls-san", host}, extraArgs...))
}

// StartServerWithDataDir is StartServer on dataDir (a small tmpfs, say).
func StartServerWithDataDir(t testing.TB, dataDir string, extraArgs ...string) *Server {
	t.Helper()
	return startServerIn(t, dataDir, nil, extraArgs, nil)
}

func startServer(t testing.TB, agentArgs []string, extraArgs []string) *Server {
	t.Helper()
	return startServerIn(t, "", agentArgs, extraArgs, nil)
}

// startServerWith is startServer; net, when set, gives the embedded
// agent's pod network flags from the server's data dir.
func startServerWith(t testing.TB, agentArgs []string, extraArgs []string, net func(dataDir string) []string) *Server {
	t.Helper()
	return startServerIn(t, "", agentArgs, extraArgs, net)
}

// startServerIn starts a server on dataDir, a fresh one when "".
func startServerIn(t testing.TB, dataDir string, agentArgs []string, extraArgs []string, net func(dataDir string) []string) *Server {
	t.Helper()
	dir := t.TempDir()
	if dataDir == "" {
		dataDir = filepath.Join(dir, "data")
	}
	s := &Server{t: t, DataDir: dataDir, Port: porttest.Free(t), MQTTPort: porttest.Free(t), Host: "127.0.0.1",
		Kubeconfig: filepath.Join(dir, "kubeconfig.yaml"), Home: filepath.Join(dir, "home"), AgentArgs: agentArgs}
	if net != nil {
		s.AgentArgs = append(s.AgentArgs, net(s.DataDir)...)
	}
	if !hasFlag(extraArgs, "--cluster-cidr") {
		s.ClusterCIDR = clusterCIDR() // every start of s passes it
	}
	if err := os.MkdirAll(s.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(extraArgs); i++ {
		if extraArgs[i] == "--bind-address" {
			s.Host = extraArgs[i+1]
		}
	}
	s.Start(extraArgs...)
	t.Cleanup(func() {
		s.Kill()
		if strings.Contains(s.Logs(), "WARNING: DATA RACE") {
			t.Errorf("the server reported a data race:\n%s", s.Logs())
		}
	})
	return s
}

// URL is the server's base URL.
func (s *Server) URL() string { return "https://" + net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Stop sends SIGTERM and waits; it fails the test if the exit is not clean.
func (s *Server) Stop() {
	s.t.Helper()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		if s.exitErr != nil {
			s.t.Fatalf("bramble server did not exit cleanly on SIGTERM: %v\n%s", s.exitErr, s.logs)
		}
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		s.t.Fatalf("bramble server still running 15s after SIGTERM\n%s", s.logs)
	}
	s.cmd = nil
}

// Kill ends the process with SIGKILL (used by cleanup).
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// PID of the running server process.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Logs returns what the server printed so far.
func (s *Server) Logs() string { return s.logs.String() }

// Kubectl runs the real kubectl against the server and returns its output.
func (s *Server) Kubectl(args ...string) (stdout, stderr string, err error) {
	return s.KubectlWith(KubectlPath, s.Kubeconfig, "", args...)
}

// KubectlWith runs a given kubectl binary with a kubeconfig and stdin.
func (s *Server) KubectlWith(bin, kubeconfig, stdin string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+s.Home)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// MustKubectl runs kubectl and fails the test on a non-zero exit.
func (s *Server) MustKubectl(args ...string) string {
	s.t.Helper()
	out, errOut, err := s.Kubectl(args...)
	if err != nil {
		s.t.Fatalf("kubectl %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// Apply runs kubectl apply -f - with the given manifest.
func (s *Server) Apply(manifest string, extra ...string) (string, string, error) {
	return s.KubectlWith(KubectlPath, s.Kubeconfig, manifest, append([]string{"apply", "-f", "-"}, extra...)...)
}
