package e2e

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/join"
)

// TestNodeCertificateRenewal runs a real server that issues node
// certificates for 30 seconds and a real agent running a pod: the agent
// renews its certificate online (about every 20 s) without a join token,
// the pod's container is never restarted, the node stays Ready, and each
// renewal costs the MQTT connection one reconnect at most, with no
// connection attempt refused.
func TestNodeCertificateRenewal(t *testing.T) {
	const node, ns, renewals = "renew-e2e", "bramble-e2e-renew", 3
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t, "--node-cert-validity", "30s")
	a := cluster.StartAgent(t, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", node)
	a.WaitReady(t, s, node)
	a.ImportBusybox(t, d, ns, "docker.io/library/busybox:e2e-agent")
	if _, stderr, err := s.Apply(agentPod(node)); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	cluster.WaitFor(t, 60*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 1 }, "the pod to run")
	pid := cluster.TaskPID(t, d, ns, "main")
	first := nodeCertSerial(t, a.DataDir)
	began := time.Now()
	cluster.WaitFor(t, 150*time.Second, func() bool {
		return strings.Count(a.Output(), "node certificate renewed") >= renewals
	}, "three renewals")
	t.Logf("%d renewals in %s", renewals, time.Since(began).Round(time.Second))
	if got := nodeCertSerial(t, a.DataDir); got == first {
		t.Errorf("node.crt still holds serial %s after %d renewals", got, renewals)
	}
	if got := cluster.TaskPID(t, d, ns, "main"); got != pid {
		t.Errorf("the pod's task changed from pid %d to %d: renewal restarted it", pid, got)
	}
	lost := strings.Count(a.Output(), "MQTT connection lost")
	refused := strings.Count(s.Logs(), "mqtt connection refused")
	t.Logf("MQTT connections lost: %d, connection attempts refused: %d", lost, refused)
	if lost > strings.Count(a.Output(), "node certificate renewed") {
		t.Errorf("%d MQTT connections lost for %d renewals: more than one reconnect per renewal", lost, renewals)
	}
	if refused > 0 {
		t.Errorf("the broker refused %d connection attempts (an old certificate tried after renewal)", refused)
	}
	cluster.WaitFor(t, 20*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "node", node, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && out == "True"
	}, "the node to be Ready with its renewed certificate")
	t.Logf("MQTT back after each lost connection within %v", reconnectGaps(a.Output()))
	// kubectl logs goes server -> MQTT rpc -> agent: the new session works.
	if out := s.MustKubectl("logs", "hello"); strings.TrimSpace(out) != "hello-from-bramble" {
		t.Errorf("kubectl logs hello after renewal: got %q", out)
	}
}

// reconnectGaps is, for each MQTT connection the agent lost, how long
// until it was connected and subscribed again (from its debug log).
func reconnectGaps(out string) []time.Duration {
	var gaps []time.Duration
	var lostAt time.Time
	for _, line := range strings.Split(out, "\n") {
		stamp, _, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "time="), " ")
		at, err := time.Parse(time.RFC3339Nano, stamp)
		switch {
		case !ok || err != nil:
		case strings.Contains(line, "MQTT connection lost"):
			lostAt = at
		case strings.Contains(line, "MQTT connected and subscribed") && !lostAt.IsZero():
			gaps = append(gaps, at.Sub(lostAt))
			lostAt = time.Time{}
		}
	}
	return gaps
}

func nodeCertSerial(t *testing.T, dataDir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dataDir, "agent", join.CertFile))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatal("node.crt: no PEM block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert.SerialNumber.Text(16)
}
