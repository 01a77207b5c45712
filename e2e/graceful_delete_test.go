package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestGracefulPodDeletion runs the server with its embedded agent on a
// private containerd: a deleted pod shows Terminating while its preStop
// hook runs and is gone once its container stopped; a force delete
// removes a pod at once; a StatefulSet pod deleted is created again only
// once the old one is gone, so two of its containers never run together.
func TestGracefulPodDeletion(t *testing.T) {
	const node, ns = "pi-graceful", "bramble-e2e-graceful"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerWithAgent(t, d, ns, node)
	waitNodeReady(t, s, node)
	cluster.ImportBusybox(t, s.DataDir, d, ns, "docker.io/library/busybox:e2e-agent")
	s.MustKubectl("create", "namespace", "work")

	testTerminatingWhilePreStop(t, s, d, ns, node)
	testForceDelete(t, s, d, ns, node)
	testStatefulSetWaitsForOldPod(t, s, d, ns)
	if t.Failed() {
		t.Logf("server and embedded agent output:\n%s", s.Logs())
	}
}

// stoppablePod runs a shell that exits on SIGTERM, with a preStop hook of
// preStop seconds and the given grace.
func stoppablePod(name, node string, preStop, grace int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %[1]s, namespace: work}
spec:
  nodeName: %[2]s
  terminationGracePeriodSeconds: %[4]d
  containers:
  - name: main
    image: docker.io/library/busybox:e2e-agent
    imagePullPolicy: Never
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]
    lifecycle:
      preStop:
        exec: {command: ["sleep", "%[3]d"]}
`, name, node, preStop, grace)
}

func waitGracefulPodRunning(t *testing.T, s *cluster.Server, name string) {
	t.Helper()
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", name, "-n", "work", "-o", "jsonpath={.status.phase}")
		return err == nil && out == "Running"
	}, "pod "+name+" to run")
}

func podGone(s *cluster.Server, name string) bool {
	_, stderr, err := s.Kubectl("get", "pod", name, "-n", "work")
	return err != nil && strings.Contains(stderr, "NotFound")
}

func testTerminatingWhilePreStop(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, ns, node string) {
	apply(t, s, stoppablePod("graceful", node, 6, 30))
	waitGracefulPodRunning(t, s, "graceful")
	deleted := time.Now()
	s.MustKubectl("delete", "pod", "graceful", "-n", "work", "--wait=false")
	if out := s.MustKubectl("get", "pod", "graceful", "-n", "work", "--no-headers"); !strings.Contains(out, "Terminating") {
		t.Errorf("kubectl get pod right after the delete: got %q, want STATUS Terminating", out)
	}
	if n := cluster.RunningTasks(t, d, ns); n != 1 {
		t.Errorf("containers running during the preStop hook: got %d, want 1", n)
	}
	cluster.WaitFor(t, 40*time.Second, func() bool { return podGone(s, "graceful") }, "the terminating pod to be gone")
	if took := time.Since(deleted); took < 5*time.Second {
		t.Errorf("pod gone %v after the delete, want after its 6 s preStop hook", took)
	}
	if n := cluster.RunningTasks(t, d, ns); n != 0 {
		t.Errorf("containers running once the pod is gone: got %d, want 0", n)
	}
}

func testForceDelete(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, ns, node string) {
	apply(t, s, stoppablePod("forced", node, 60, 2))
	waitGracefulPodRunning(t, s, "forced")
	s.MustKubectl("delete", "pod", "forced", "-n", "work", "--force", "--grace-period=0")
	if !podGone(s, "forced") {
		t.Errorf("pod forced: still there right after a force delete")
	}
	cluster.WaitFor(t, 30*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 0 },
		"the force-deleted pod's container to stop on its node")
}

const gracefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: work}
spec:
  replicas: 1
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: main
        image: docker.io/library/busybox:e2e-agent
        imagePullPolicy: Never
        command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]
        lifecycle:
          preStop:
            exec: {command: ["sleep", "4"]}
`

func testStatefulSetWaitsForOldPod(t *testing.T, s *cluster.Server, d *runtimetest.Daemon, ns string) {
	apply(t, s, gracefulSet)
	waitGracefulPodRunning(t, s, "web-0")
	old := s.MustKubectl("get", "pod", "web-0", "-n", "work", "-o", "jsonpath={.metadata.uid}")
	s.MustKubectl("delete", "pod", "web-0", "-n", "work", "--wait=false")
	sawTerminating := false
	cluster.WaitFor(t, 60*time.Second, func() bool {
		if n := cluster.RunningTasks(t, d, ns); n > 1 {
			t.Fatalf("%d containers of web-0 run at once, want the new one only after the old one stopped", n)
		}
		out, _, err := s.Kubectl("get", "pod", "web-0", "-n", "work", "-o", "jsonpath={.metadata.uid} {.metadata.deletionTimestamp} {.status.phase}")
		f := strings.Fields(out)
		if err != nil || len(f) < 2 {
			return false
		}
		sawTerminating = sawTerminating || (f[0] == old && len(f) == 3)
		return f[0] != old && f[len(f)-1] == "Running"
	}, "web-0 to be created again and run")
	if !sawTerminating {
		t.Errorf("the old web-0 was never seen Terminating")
	}
}
