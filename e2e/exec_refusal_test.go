package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// testExecRefusals: a viewer is refused before anything reaches a node,
// and a node whose agent runs with --disable-exec refuses with a message
// naming the flag.
func testExecRefusals(t *testing.T, s *cluster.Server, d *runtimetest.Daemon) {
	viewerKC := filepath.Join(t.TempDir(), "viewer.yaml")
	out, err := exec.Command(cluster.Bin, "user", "create", "alice", "--role", "viewer", "--kubeconfig", s.Kubeconfig, "--out", viewerKC).CombinedOutput()
	if err != nil {
		t.Fatalf("bramble user create: %v: %s", err, out)
	}
	for _, v := range []string{"1.27", "1.33"} {
		_, errOut, err := s.KubectlWith(kubectlBin(v), viewerKC, "", "-n", "work", "exec", "box", "--", "echo", "hi")
		if err == nil || !strings.Contains(strings.ToLower(errOut), "forbidden") {
			t.Errorf("kubectl %s exec as a viewer: got %v, stderr %q; want forbidden", v, err, errOut)
		}
	}
	const locked = "pi-locked"
	a := cluster.StartAgent(t, s, d, "bramble-e2e-locked", "--token", cluster.JoinToken(t, s), "--node-name", locked, "--disable-exec")
	a.WaitReady(t, s, locked)
	if _, stderr, err := s.Apply(busyboxPod("locked", locked, "Never", "{}", "sleep 3600")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	for _, v := range []string{"1.27", "1.33"} {
		_, errOut, err := s.KubectlWith(kubectlBin(v), s.Kubeconfig, "", "-n", "work", "exec", "locked", "--", "echo", "hi")
		if err == nil || !strings.Contains(errOut, "disabled on node \"pi-locked\"") || !strings.Contains(errOut, "--disable-exec") {
			t.Errorf("kubectl %s exec on a --disable-exec node: got %v, stderr %q; want the refusal naming the flag", v, err, errOut)
		}
	}
	testDebugRefusals(t, s, viewerKC)
}

// testDebugRefusals: a viewer may not add an ephemeral container, and a
// --disable-exec node does not run one.
func testDebugRefusals(t *testing.T, s *cluster.Server, viewerKC string) {
	_, errOut, err := s.KubectlWith(kubectlBin("1.33"), viewerKC, "", "-n", "work", "debug", "box", debugImage, "--", "true")
	if err == nil || !strings.Contains(strings.ToLower(errOut), "forbidden") {
		t.Errorf("kubectl debug as a viewer: got %v, stderr %q; want forbidden", err, errOut)
	}
	if _, stderr, err := s.Kubectl("-n", "work", "debug", "locked", debugImage, "--image-pull-policy=Never", "-c", "dbg", "--", "true"); err != nil {
		t.Fatalf("kubectl debug on the locked node: %v: %s", err, stderr)
	}
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "locked", "-n", "work", "-o", "jsonpath={.status.ephemeralContainerStatuses[0].state.waiting.message}")
		return err == nil && strings.Contains(out, `refused on node "pi-locked" (--disable-exec)`)
	}, "the locked node to refuse the ephemeral container")
}
