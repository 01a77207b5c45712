package e2e

import (
	"crypto/x509"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/join"
)

// TestRotateCA runs the two steps of `bramble certificate rotate-ca`
// against a real server and a real agent that holds only the old CA and
// runs a pod: after step 1 and a restart the agent reconnects under the
// old CA and holds the bundle of both CAs shortly after (it asks every
// second here), and the server records that; --finish then succeeds, and
// after a restart the agent reconnects to a server whose certificate comes
// from the new CA, renews its own certificate under the new CA without
// joining again, kubectl works with the rewritten admin kubeconfig and
// with a copy taken during step 1, and the pod was never restarted.
func TestRotateCA(t *testing.T) {
	const node, ns = "rotate-ca-e2e", "bramble-e2e-rotate-ca"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	a := cluster.StartAgent(t, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", node, "--ca-bundle-interval", "1s")
	a.WaitReady(t, s, node)
	a.ImportBusybox(t, d, ns, "docker.io/library/busybox:e2e-agent")
	if _, stderr, err := s.Apply(agentPod(node)); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	cluster.WaitFor(t, 60*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 1 }, "the pod to run")
	pid := cluster.TaskPID(t, d, ns, "main")
	oldCA := agentCAs(t, a.DataDir)
	if len(oldCA) != 1 {
		t.Fatalf("agent ca.crt before the rotation: %d CAs, want 1", len(oldCA))
	}

	// Step 1: a new CA beside the old one.
	s.Stop()
	bramble(t, "certificate", "rotate-ca", "--data-dir", s.DataDir)
	if out, err := exec.Command(cluster.Bin, "certificate", "rotate-ca", "--finish", "--data-dir", s.DataDir).CombinedOutput(); err == nil ||
		!strings.Contains(string(out), "about another CA bundle") {
		t.Fatalf("--finish before any node holds the bundle: got %v, %s; want a refusal", err, out)
	}
	connects := strings.Count(a.Output(), "MQTT connected and subscribed")
	s.Start()
	cluster.WaitFor(t, 30*time.Second, func() bool { return len(agentCAs(t, a.DataDir)) == 2 }, "the agent to hold the bundle of both CAs")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		return strings.Contains(bramble(t, "certificate", "check", "--data-dir", s.DataDir), node+"  holds it")
	}, "the server to record that the node holds the bundle")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		return strings.Count(a.Output(), "MQTT connected and subscribed") > connects
	}, "the agent's MQTT reconnect under the old CA")

	// A copy of the admin kubeconfig made now (both CAs, the admin
	// certificate of the old one) must keep working after --finish.
	copied := filepath.Join(t.TempDir(), "copied.yaml")
	if raw, err := os.ReadFile(s.Kubeconfig); err != nil || os.WriteFile(copied, raw, 0o600) != nil {
		t.Fatalf("copy the admin kubeconfig: %v", err)
	}

	// Step 2: the new CA becomes current.
	s.Stop()
	bramble(t, "certificate", "rotate-ca", "--finish", "--data-dir", s.DataDir)
	newCA := readCert(t, filepath.Join(s.DataDir, "server", "tls", "ca.crt"))
	if newCA.Equal(oldCA[0]) {
		t.Fatal("ca.crt after --finish is still the old CA")
	}
	connects = strings.Count(a.Output(), "MQTT connected and subscribed")
	s.Start()
	cluster.WaitFor(t, 30*time.Second, func() bool {
		cert := readCert(t, filepath.Join(a.DataDir, "agent", join.CertFile))
		return cert.CheckSignatureFrom(newCA) == nil
	}, "the agent to renew its certificate under the new CA")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		return strings.Count(a.Output(), "MQTT connected and subscribed") > connects
	}, "the agent's MQTT reconnect to the server of the new CA")
	if n := strings.Count(a.Output(), "joined the cluster"); n != 1 {
		t.Errorf("the agent joined %d times, want once (no join again after the rotation)", n)
	}
	serving := readCert(t, filepath.Join(s.DataDir, "server", "tls", "serving.crt"))
	if serving.CheckSignatureFrom(newCA) != nil {
		t.Error("serving.crt after --finish and a start is not signed by the new CA")
	}
	// kubectl with the rewritten admin kubeconfig; kubectl logs goes
	// server -> MQTT rpc -> agent, so the node's session works too.
	if out := s.MustKubectl("logs", "hello"); strings.TrimSpace(out) != "hello-from-bramble" {
		t.Errorf("kubectl logs hello after the rotation: got %q", out)
	}
	if out, stderr, err := s.KubectlWith(cluster.KubectlPath, copied, "", "get", "node", node, "-o", "name"); err != nil ||
		strings.TrimSpace(out) != "node/"+node {
		t.Errorf("kubectl with the kubeconfig copied during step 1: %q, %v: %s", out, err, stderr)
	}
	if got := cluster.TaskPID(t, d, ns, "main"); got != pid {
		t.Errorf("the pod's task changed from pid %d to %d: the rotation restarted it", pid, got)
	}
}

// agentCAs are the CAs of the agent's ca.crt.
func agentCAs(t *testing.T, dataDir string) []*x509.Certificate {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dataDir, "agent", join.CAFile))
	if err != nil {
		t.Fatal(err)
	}
	cas, err := join.ParseBundle(raw)
	if err != nil {
		t.Fatalf("agent ca.crt: %v", err)
	}
	return cas
}
