package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestKubernetesServiceInPod: an agent in a network namespace of its own on
// a test bridge, the server on the bridge's address. Once the agent holds
// default/kubernetes (its cluster DNS answers the name), a pod started on
// it has KUBERNETES_SERVICE_HOST=10.43.0.1 and KUBERNETES_SERVICE_PORT=443,
// and from the pod's network namespace an HTTPS GET of
// https://10.43.0.1:443/version goes through the service proxy to the API
// server, whose certificate verifies against the cluster CA for
// kubernetes.default.svc: what in-cluster config does.
func TestKubernetesServiceInPod(t *testing.T) {
	cluster.NeedNetworkTools(t)
	br := cluster.NewBridge(t)
	na := br.AddNamespace()
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerOn(t, br.Addr.String())
	token := cluster.JoinToken(t, s)
	const nsA = "bramble-e2e-kapi"
	a := cluster.StartAgentIn(t, na, s, d, nsA, "--token", token, "--node-name", "na")
	a.WaitReady(t, s, "na")
	cluster.ImportNetHelper(t, a.DataDir, d, nsA, netImage)
	helper := buildNetHelper(t)
	waitNodeResolves(t, na.Path, helper, "kubernetes.default.svc.cluster.local", "10.43.0.1")

	s.MustKubectl("create", "namespace", "kapi")
	apply(t, s, fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: incluster, namespace: kapi}
spec:
  nodeName: na
  terminationGracePeriodSeconds: 1
  containers:
  - {name: incluster, image: %s, imagePullPolicy: Never, command: ["sleep", "3600"]}
`, netImage))
	podIPs(t, s, "kapi", 1)
	pid := cluster.TaskPID(t, d, nsA, "incluster")
	env := procEnv(t, pid)
	if env["KUBERNETES_SERVICE_HOST"] != "10.43.0.1" || env["KUBERNETES_SERVICE_PORT"] != "443" {
		t.Errorf("pod env KUBERNETES_SERVICE_HOST=%q KUBERNETES_SERVICE_PORT=%q, want 10.43.0.1 and 443",
			env["KUBERNETES_SERVICE_HOST"], env["KUBERNETES_SERVICE_PORT"])
	}
	waitTLSGet(t, pid, helper, filepath.Join(s.DataDir, "server", "tls", "ca.crt"))
}

// waitTLSGet waits until, from pid's network namespace, an HTTPS GET of
// https://10.43.0.1:443/version answers 200, the certificate verified
// against ca for kubernetes.default.svc.
func waitTLSGet(t *testing.T, pid int, helper, ca string) {
	t.Helper()
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("last tlsget answer: %s", last)
		}
	}()
	cluster.WaitFor(t, 30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "nsenter", fmt.Sprintf("--net=/proc/%d/ns/net", pid), helper,
			"tlsget", "https://10.43.0.1:443/version", ca, "kubernetes.default.svc").CombinedOutput()
		last = strings.TrimSpace(string(out))
		return err == nil && strings.Contains(last, "gitVersion")
	}, "the pod to GET https://10.43.0.1/version, verified for kubernetes.default.svc")
}

// waitNodeResolves waits until the cluster DNS of the node in network
// namespace nsPath answers name with want.
func waitNodeResolves(t *testing.T, nsPath, helper, name, want string) {
	t.Helper()
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("last answer for %s: %s", name, last)
		}
	}()
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, err := exec.Command("nsenter", "--net="+nsPath, helper, "lookup", name+"@10.43.0.10:53").CombinedOutput()
		last = strings.TrimSpace(string(out))
		return err == nil && last == want
	}, fmt.Sprintf("%s to resolve to %s at the node's cluster DNS", name, want))
}

// procEnv reads a process's environment.
func procEnv(t *testing.T, pid int) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(raw, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			env[k] = v
		}
	}
	return env
}
