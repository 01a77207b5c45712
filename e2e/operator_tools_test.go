package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// testOperatorTools runs the k3s-style conveniences against the running
// pod "hello" in containerd namespace ns: bramble crictl lists its
// container and pod by name, bramble ctr reaches the same containers
// through the environment it sets, and bramble kubectl runs the real
// kubectl; bin is the bramble these run, and the agent-only build has no
// kubectl command.
func testOperatorTools(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, ns, bin string) {
	endpoint := []string{"--container-runtime-endpoint", d.Address, "--containerd-namespace", ns}
	ps := cluster.MustRun(t, bin, append([]string{"crictl", "ps"}, endpoint...)...)
	if !containsAll(ps, []string{"CONTAINER", "POD", "hello", "Running", "default"}) {
		t.Errorf("bramble crictl ps: want the hello pod's running container, got:\n%s", ps)
	}
	pods := cluster.MustRun(t, bin, append([]string{"crictl", "pods"}, endpoint...)...)
	if !containsAll(pods, []string{"hello", "default", "Ready", "1/1 running"}) {
		t.Errorf("bramble crictl pods: want hello Ready with 1/1 running, got:\n%s", pods)
	}
	if imgs := cluster.MustRun(t, bin, append([]string{"crictl", "images"}, endpoint...)...); !strings.Contains(imgs, "busybox") {
		t.Errorf("bramble crictl images: want the busybox image, got:\n%s", imgs)
	}

	ctr := exec.Command(bin, "ctr", "containers", "ls", "-q")
	ctr.Env = append(os.Environ(), "CONTAINERD_ADDRESS="+d.Address, "CONTAINERD_NAMESPACE="+ns)
	out, err := ctr.CombinedOutput()
	if want := firstContainer(t, d, ns); err != nil || !strings.Contains(string(out), want) {
		t.Errorf("bramble ctr containers ls -q: got %v %q, want container %s", err, out, want)
	}

	if bin != cluster.Bin {
		refused := exec.Command(bin, "kubectl", "get", "pod", "hello")
		if out, err := refused.CombinedOutput(); err == nil || !strings.Contains(string(out), "needs the full build") {
			t.Errorf("bramble kubectl from the agent-only build: got %v %q, want a refusal naming the full build", err, out)
		}
		return
	}
	kubectl := exec.Command(bin, "kubectl", "get", "pod", "hello", "-o", "name")
	kubectl.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig)
	if out, err := kubectl.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "pod/hello" {
		t.Errorf("bramble kubectl get pod hello -o name: got %v %q, want pod/hello", err, out)
	}
	bad := exec.Command(bin, "kubectl", "get", "pod", "absent")
	bad.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig)
	if err := bad.Run(); err == nil {
		t.Error("bramble kubectl get pod absent: exit 0, want kubectl's own non-zero exit")
	}
}
