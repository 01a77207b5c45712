package e2e

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
)

// kubectlVersions covers both protocols: 1.27-1.29 speak SPDY/3.1, 1.30+
// WebSocket (v5.channel.k8s.io; port-forward tunnels SPDY in WebSocket
// from 1.31).
var kubectlVersions = []string{"1.27", "1.29", "1.30", "1.33"}

func kubectlBin(v string) string { return "/usr/lib/google-cloud-sdk/bin/kubectl." + v }

// TestExec drives kubectl exec, cp and port-forward of several versions
// through the embedded broker and the agent's tunnel, with a real
// containerd.
func TestExec(t *testing.T) {
	const node, ns = "pi-exec", "bramble-e2e-exec"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerWithAgent(t, d, ns, node)
	waitNodeReady(t, s, node)
	cluster.ImportBusybox(t, s.DataDir, d, ns, "docker.io/library/busybox:e2e-agent")
	s.MustKubectl("create", "namespace", "work")
	startExecPods(t, s, node)
	for _, v := range kubectlVersions {
		t.Run(v, func(t *testing.T) { testExecWith(t, s, kubectlBin(v)) })
	}
	t.Run("attach", func(t *testing.T) { testAttach(t, s, node) })
	t.Run("debug", func(t *testing.T) { testDebug(t, s, node) })
	t.Run("refusals", func(t *testing.T) { testExecRefusals(t, s, d) })
	if t.Failed() {
		t.Logf("server and embedded agent output:\n%s", s.Logs())
	}
}

func startExecPods(t *testing.T, s *cluster.Server, node string) {
	t.Helper()
	if _, stderr, err := s.Apply(busyboxPod("box", node, "Never", "{}", "sleep 3600")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	web := "mkdir -p /www && head -c 52428800 /dev/urandom > /www/big && exec httpd -f -p 8080 -h /www"
	if _, stderr, err := s.Apply(busyboxPod("web", node, "Never", "{}", web)); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	for _, pod := range []string{"box", "web"} {
		cluster.WaitFor(t, 60*time.Second, func() bool {
			out, _, err := s.Kubectl("get", "pod", pod, "-n", "work", "-o", "jsonpath={.status.phase}")
			return err == nil && out == "Running"
		}, "pod "+pod+" to run")
	}
	cluster.WaitFor(t, 60*time.Second, func() bool {
		_, _, err := s.Kubectl("exec", "-n", "work", "web", "--", "test", "-s", "/www/big")
		return err == nil
	}, "the 50 MiB file")
}

func testExecWith(t *testing.T, s *cluster.Server, bin string) {
	k := testExecBasics(t, s, bin)
	testExecTTY(t, s, bin)
	testCopy(t, k)
	testPortForward(t, s, bin)
}

// testExecBasics: output, exit codes, 1 MiB through cat; it returns the
// kubectl it ran.
func testExecBasics(t *testing.T, s *cluster.Server, bin string) func(string, ...string) (string, string, error) {
	k := func(stdin string, args ...string) (string, string, error) {
		return s.KubectlWith(bin, s.Kubeconfig, stdin, append([]string{"-n", "work"}, args...)...)
	}
	if out, errOut, err := k("", "exec", "box", "--", "echo", "hi"); err != nil || out != "hi\n" {
		t.Fatalf("exec echo hi: got %q, %v (%s), want %q", out, err, errOut, "hi\n")
	}
	_, _, err := k("", "exec", "box", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("exec exit 3: got %v, want exit code 3", err)
	}
	in := make([]byte, 1<<20)
	_, _ = rand.Read(in)
	out, errOut, err := k(string(in), "exec", "-i", "box", "--", "cat")
	if err != nil || out != string(in) {
		t.Fatalf("exec -i cat of 1 MiB: got %d bytes (equal: %v), %v (%s)", len(out), out == string(in), err, errOut)
	}
	return k
}

// testCopy: kubectl cp of 10 MiB into the pod and back out, checksums equal.
func testCopy(t *testing.T, k func(string, ...string) (string, string, error)) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.bin")
	data := make([]byte, 10<<20)
	_, _ = rand.Read(data)
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := k("", "cp", src, "box:/tmp/in.bin"); err != nil {
		t.Fatalf("kubectl cp in: %v: %s", err, errOut)
	}
	want := sha256.Sum256(data)
	out, errOut, err := k("", "exec", "box", "--", "sha256sum", "/tmp/in.bin")
	if err != nil || !strings.HasPrefix(out, hex.EncodeToString(want[:])) {
		t.Fatalf("sha256sum in the pod: got %q, %v (%s), want %x", out, err, errOut, want)
	}
	back := filepath.Join(dir, "out.bin")
	if _, errOut, err := k("", "cp", "box:/tmp/in.bin", back); err != nil {
		t.Fatalf("kubectl cp out: %v: %s", err, errOut)
	}
	got, err := os.ReadFile(back)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("kubectl cp out: got %d bytes (%v), want the %d bytes copied in", len(got), err, len(data))
	}
}

// testPortForward fetches the web pod's 50 MiB through kubectl port-forward.
func testPortForward(t *testing.T, s *cluster.Server, bin string) {
	port := porttest.Free(t)
	pf := exec.Command(bin, "-n", "work", "port-forward", "pod/web", fmt.Sprintf("%d:8080", port))
	pf.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig, "HOME="+s.Home)
	var pfOut bytes.Buffer
	pf.Stdout, pf.Stderr = &pfOut, &pfOut
	if err := pf.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pf.Process.Kill(); _ = pf.Wait() }()
	want, _, err := s.KubectlWith(bin, s.Kubeconfig, "", "-n", "work", "exec", "web", "--", "sha256sum", "/www/big")
	if err != nil {
		t.Fatal(err)
	}
	var sum string
	cluster.WaitFor(t, 30*time.Second, func() bool {
		got, err := exec.Command("sh", "-c", fmt.Sprintf("curl -fsS http://127.0.0.1:%d/big | sha256sum", port)).Output()
		sum = string(got)
		return err == nil && len(sum) >= 64 && sum[:64] == want[:64]
	}, "the 50 MiB body through port-forward")
	if t.Failed() {
		t.Logf("port-forward: %s; last sum %q, want %q", pfOut.String(), sum, want)
	}
}
