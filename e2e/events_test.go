package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestAgentEvents runs a real agent on a private containerd and reads what
// it reports the way users do, with kubectl: a pod whose image cannot be
// pulled, a crash-looping pod and a pod failing its readiness probe show
// the kubelet's events in `kubectl describe pod`, repeats raise an Event's
// count instead of adding Events, an agent restarted after the boot id
// changed shows Rebooted on its Node, and `kubectl get nodes` shows a
// Kubernetes version.
func TestAgentEvents(t *testing.T) {
	const node, ns = "pi-events", "bramble-e2e-events"
	boot := filepath.Join(t.TempDir(), "boot_id")
	writeBootID(t, boot, "boot-one")
	t.Setenv("BRAMBLE_BOOT_ID_FILE", boot)
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	a := cluster.StartAgent(t, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", node)
	a.WaitReady(t, s, node)
	a.ImportBusybox(t, d, ns, "docker.io/library/busybox:e2e-events")
	s.MustKubectl("create", "namespace", "work")

	t.Run("pods", func(t *testing.T) {
		t.Run("missing image", func(t *testing.T) { t.Parallel(); testMissingImageEvents(t, s, node) })
		t.Run("crash loop", func(t *testing.T) { t.Parallel(); testCrashLoopEvents(t, s, node) })
		t.Run("readiness", func(t *testing.T) { t.Parallel(); testUnhealthyEvents(t, s, node) })
	})
	if out := s.MustKubectl("get", "nodes"); !strings.Contains(out, "VERSION") || !strings.Contains(out, " v1.32.0+bramble.") {
		t.Errorf("kubectl get nodes: got\n%s\nwant VERSION v1.32.0+bramble.<version>", out)
	}

	writeBootID(t, boot, "boot-two")
	a.Stop(t)
	a.Restart(t)
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, _ := s.Kubectl("describe", "node", node)
		return strings.Contains(out, "Rebooted") && strings.Contains(out, "Node pi-events has been rebooted, boot id: boot-two")
	}, "kubectl describe node to show Rebooted")
	// describe node is complete, as for a kubelet's node: every section
	// kubectl prints from the Node and the pods bound to it.
	desc := s.MustKubectl("describe", "node", node)
	for _, section := range []string{"Conditions:", "Addresses:", "Capacity:", "Allocatable:", "System Info:",
		"Kubelet Version:", "PodCIDR:", "Non-terminated Pods:", "Allocated resources:", "Events:"} {
		if !strings.Contains(desc, section) {
			t.Errorf("kubectl describe node %s: no %q section in\n%s", node, section, desc)
		}
	}
	if evs := eventsAbout(t, s, "default", node); len(withReason(evs, "Rebooted")) != 1 || len(withReason(evs, "NodeReady")) != 1 {
		t.Errorf("node events: got %s, want one Rebooted and one NodeReady", summary(evs))
	}
}

func writeBootID(t *testing.T, path, id string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// testMissingImageEvents: an image no registry serves gives Pulling, Failed
// with the registry's answer, ErrImagePull and BackOff, and the retry after
// the back-off raises the count of the same Events.
func testMissingImageEvents(t *testing.T, s *cluster.Server, node string) {
	pod := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: missing, namespace: work}
spec:
  nodeName: %s
  containers:
  - {name: app, image: "127.0.0.1:9/bramble/missing:1", imagePullPolicy: IfNotPresent}
`, node)
	if _, stderr, err := s.Apply(pod); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	waitDescribe(t, s, "missing", `Pulling image "127.0.0.1:9/bramble/missing:1"`,
		`Failed to pull image "127.0.0.1:9/bramble/missing:1": `, "Error: ErrImagePull", `Back-off pulling image "127.0.0.1:9/bramble/missing:1"`)
	waitCount(t, s, "missing", "Pulling", 2)
}

// testCrashLoopEvents: a container that exits at once shows Created,
// Started and BackOff, one Event each with a rising count.
func testCrashLoopEvents(t *testing.T, s *cluster.Server, node string) {
	if _, stderr, err := s.Apply(busyboxPodIn("crasher", node, "exit 3", "")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	waitDescribe(t, s, "crasher", "Created container: crasher", "Started container crasher",
		"Back-off restarting failed container crasher in pod crasher_work(")
	waitCount(t, s, "crasher", "Started", 2)
}

// testUnhealthyEvents: a readiness probe that fails shows Unhealthy with
// what the probe printed.
func testUnhealthyEvents(t *testing.T, s *cluster.Server, node string) {
	probe := `
    readinessProbe:
      exec: {command: ["sh", "-c", "echo not ready yet; exit 1"]}
      periodSeconds: 1`
	if _, stderr, err := s.Apply(busyboxPodIn("unready", node, "sleep 3600", probe)); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	waitDescribe(t, s, "unready", "Readiness probe failed: not ready yet")
	waitCount(t, s, "unready", "Unhealthy", 3)
}

// busyboxPodIn is a pod in namespace work on node running command, with
// extra lines in its container.
func busyboxPodIn(name, node, command, extra string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %[1]s, namespace: work}
spec:
  nodeName: %[2]s
  terminationGracePeriodSeconds: 1
  containers:
  - name: %[1]s
    image: docker.io/library/busybox:e2e-events
    imagePullPolicy: Never
    command: ["sh", "-c", %[3]q]%[4]s
`, name, node, command, extra)
}

// waitDescribe waits until `kubectl describe pod` shows every part.
func waitDescribe(t *testing.T, s *cluster.Server, pod string, parts ...string) {
	t.Helper()
	var out string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out, _, _ = s.Kubectl("describe", "pod", pod, "-n", "work")
		if containsAll(out, parts) {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("kubectl describe pod %s: got\n%s\nwant it to show %q", pod, out, parts)
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// waitCount waits until the pod's one Event with reason has count >= n,
// and fails if the reason is ever spread over several Events.
func waitCount(t *testing.T, s *cluster.Server, pod, reason string, n int32) {
	t.Helper()
	var evs []corev1.Event
	cluster.WaitFor(t, 60*time.Second, func() bool {
		evs = withReason(eventsAbout(t, s, "work", pod), reason)
		if len(evs) > 1 {
			t.Fatalf("pod %s: %d Events with reason %s (%s), want one with a rising count", pod, len(evs), reason, summary(evs))
		}
		return len(evs) == 1 && evs[0].Count >= n
	}, fmt.Sprintf("pod %s's %s Event to reach count %d", pod, reason, n))
}

// eventsAbout lists the Events about the object named name in namespace.
func eventsAbout(t *testing.T, s *cluster.Server, namespace, name string) []corev1.Event {
	t.Helper()
	out := s.MustKubectl("get", "events", "-n", namespace, "--field-selector", "involvedObject.name="+name, "-o", "json")
	var list corev1.EventList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("kubectl get events: %v\n%s", err, out)
	}
	return list.Items
}

func withReason(evs []corev1.Event, reason string) []corev1.Event {
	var out []corev1.Event
	for _, e := range evs {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

func summary(evs []corev1.Event) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = fmt.Sprintf("%s x%d %q", e.Reason, e.Count, e.Message)
	}
	return strings.Join(parts, "; ")
}
