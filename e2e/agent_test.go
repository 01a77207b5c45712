package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/join"
)

// TestAgent runs `bramble agent` processes against a real server and a
// private containerd this test starts: a bad token stops the agent at
// once; a good one joins, and a Pod bound to the node runs in containerd
// from an image tarball dropped into the images folder, and stops when
// it is deleted.
func TestAgent(t *testing.T) {
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	token := cluster.JoinToken(t, s)
	t.Run("bad token", func(t *testing.T) { testAgentBadToken(t, s, d, token) })
	t.Run("runs pods", func(t *testing.T) { testAgentRunsPods(t, s, d, token, cluster.Bin, "") })
	// What install.sh puts on an agent: the same pods, logs, tools and
	// autonomy, from the build without the server's packages.
	t.Run("runs pods from the agent-only build", func(t *testing.T) {
		testAgentRunsPods(t, s, d, token, cluster.CopyAgentOnlyBinaries(t), "-agent-only")
	})
}

func testAgentBadToken(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, token string) {
	tok, err := join.ParseToken(token)
	if err != nil {
		t.Fatalf("default token: %v", err)
	}
	wrongHash, wrongSecret := tok, tok
	wrongHash.CAHash = strings.Repeat("0", len(tok.CAHash))
	wrongSecret.Secret = strings.Repeat("a", len(tok.Secret))
	for _, tc := range []struct{ name, token, want string }{
		{"wrong CA hash", wrongHash.String(), "CA certificate does not match"},
		{"wrong secret", wrongSecret.String(), "secret"},
	} {
		node := "bad-" + strings.ToLower(strings.ReplaceAll(tc.name, " ", "-"))
		out, err := cluster.RunAgentOnce(t, s, d, "bramble-e2e-"+node, "--token", tc.token, "--node-name", node)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Errorf("%s: got exit %v, want a non-zero exit; output:\n%s", tc.name, err, out)
			continue
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: got output %q, want it to name the problem (%q)", tc.name, out, tc.want)
		}
	}
}

// testAgentRunsPods runs the agent from bin, on a node and containerd
// namespace whose names end with suffix.
func testAgentRunsPods(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, token, bin, suffix string) {
	node, ns := "pi-agent-e2e"+suffix, "bramble-e2e-agent"+suffix
	a := cluster.StartAgentFrom(t, bin, s, d, ns, "--token", token, "--node-name", node)
	a.WaitReady(t, s, node)
	a.ImportBusybox(t, d, ns, "docker.io/library/busybox:e2e-agent")
	if _, stderr, err := s.Apply(agentPod(node)); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	cluster.WaitFor(t, 60*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 1 },
		"the pod's container to run in containerd")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		return strings.Contains(readLogs(a.DataDir), "hello-from-bramble")
	}, "the container's output in its log file")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "hello", "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Running"
	}, "kubectl get pod to show Running")
	// kubectl logs travels server -> MQTT rpc -> agent -> log file and back.
	if out := s.MustKubectl("logs", "hello"); strings.TrimSpace(out) != "hello-from-bramble" {
		t.Errorf("kubectl logs hello: got %q, want hello-from-bramble", out)
	}
	if out := s.MustKubectl("logs", "hello", "--timestamps", "--tail=1"); !strings.HasSuffix(strings.TrimSpace(out), " hello-from-bramble") ||
		!strings.HasPrefix(out, "20") {
		t.Errorf("kubectl logs --timestamps --tail=1: got %q", out)
	}

	testOperatorTools(t, s, d, ns, bin)
	testAgentAutonomy(t, s, d, a, ns)

	s.MustKubectl("delete", "pod", "hello", "--wait=false")
	cluster.WaitFor(t, 60*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 0 },
		"the pod's container to stop after kubectl delete")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		return strings.TrimSpace(cluster.Ctr(t, d, ns, "containers", "ls", "-q")) == ""
	}, "the pod's container to be removed")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		_, stderr, err := s.Kubectl("get", "pod", "hello")
		return err != nil && strings.Contains(stderr, "NotFound")
	}, "the deleted pod to be gone from the API")
	testAgentStaticPod(t, s, d, a, ns)
	a.Stop(t)
}

// testAgentAutonomy stops the server, restarts the agent (no token this
// time) after killing the pod's container as a reboot would: the pod comes
// back from the agent's local store. With the server back, the status
// catches up and the pod is not restarted.
func testAgentAutonomy(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, a *cluster.Agent, ns string) {
	s.Stop()
	a.Stop(t)
	cluster.Ctr(t, d, ns, "tasks", "kill", "-a", "-s", "SIGKILL", firstContainer(t, d, ns))
	cluster.WaitFor(t, 30*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 0 }, "the killed container to stop")
	a.Restart(t)
	cluster.WaitFor(t, 60*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 1 },
		"the pod to run again from the local store with the server down")
	before := cluster.Ctr(t, d, ns, "containers", "ls", "-q")
	s.Start()
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "hello", "-o", "jsonpath={.status.containerStatuses[0].restartCount}")
		return err == nil && out == "1"
	}, "the pod's status to catch up (restartCount 1) once the server is back")
	if after := cluster.Ctr(t, d, ns, "containers", "ls", "-q"); after != before || cluster.RunningTasks(t, d, ns) != 1 {
		t.Errorf("containers after reconnecting: got %q, want %q still running (no restart)", after, before)
	}
}

// firstContainer is the ID of a container of the namespace.
func firstContainer(t testing.TB, d *runtimetest.Daemon, ns string) string {
	t.Helper()
	ids := strings.Fields(cluster.Ctr(t, d, ns, "containers", "ls", "-q"))
	if len(ids) == 0 {
		t.Fatalf("no container in namespace %s", ns)
	}
	return ids[0]
}

// testAgentStaticPod drops a manifest into pod-manifests: the pod runs
// without any API object, and stops when the manifest goes.
func testAgentStaticPod(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, a *cluster.Agent, ns string) {
	manifest := filepath.Join(a.DataDir, "agent", "pod-manifests", "static.yaml")
	body := strings.Replace(agentPod("ignored"), "name: hello", "name: static", 1)
	if err := os.WriteFile(manifest, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cluster.WaitFor(t, 30*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 1 }, "the static pod to run")
	if out, _, _ := s.Kubectl("get", "pods", "-A", "-o", "name"); strings.Contains(out, "static") {
		t.Errorf("kubectl get pods: got %q, want no static pod (they are not API objects)", out)
	}
	if err := os.Remove(manifest); err != nil {
		t.Fatal(err)
	}
	cluster.WaitFor(t, 30*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 0 },
		"the static pod to stop once its manifest is gone")
}

func agentPod(node string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: hello
  namespace: default
spec:
  nodeName: ` + node + `
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: docker.io/library/busybox:e2e-agent
    imagePullPolicy: Never
    command: ["sh", "-c", "echo hello-from-bramble; sleep 3600"]
`
}

// readLogs concatenates every container log file under the agent's pods.
func readLogs(dataDir string) string {
	var out bytes.Buffer
	files, _ := filepath.Glob(filepath.Join(dataDir, "log", "pods", "*", "*", "*.log")) // the harness's --pod-log-dir
	for _, f := range files {
		b, _ := os.ReadFile(f)
		out.Write(b)
	}
	return out.String()
}
