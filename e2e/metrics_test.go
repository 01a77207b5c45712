package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestMetricsTop runs `bramble server` with its embedded agent on a
// private containerd and a pod burning CPU in a busy loop under a 200m
// limit: kubectl top (1.27 and 1.33) shows the node, and the pod and its
// container at about 200m, from the usage the agent's heartbeats carry
// (cgroup counters through containerd). Then `kubectl autoscale` makes an
// HPA (50 % CPU, 1 to 3) that scales a burning Deployment from 1 to 3 and,
// once its pods idle, back to 1 after a 6 s scale-down window.
func TestMetricsTop(t *testing.T) {
	const node, ns = "pi-top", "bramble-e2e-top"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerWithAgent(t, d, ns, node, "--horizontal-pod-autoscaler-sync-period", "1s")
	waitNodeReady(t, s, node)
	cluster.ImportBusybox(t, s.DataDir, d, ns, "docker.io/library/busybox:e2e-agent")
	s.MustKubectl("create", "namespace", "work")
	res := `{limits: {cpu: 200m, memory: 32Mi}, requests: {cpu: 200m, memory: 32Mi}}`
	if _, stderr, err := s.Apply(busyboxPod("burn", node, "Always", res, "while :; do :; done")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	var last string
	cluster.WaitFor(t, 90*time.Second, func() bool {
		last, _, _ = s.Kubectl("top", "pod", "burn", "-n", "work", "--no-headers")
		m := millicores(last, 1)
		return m >= 120 && m <= 260
	}, "kubectl top pod burn to show 120m to 260m")
	t.Logf("kubectl top pod burn: %s", last)
	for _, minor := range []int{27, 33} {
		bin := fmt.Sprintf("/usr/lib/google-cloud-sdk/bin/kubectl.1.%d", minor)
		out, errOut, err := s.KubectlWith(bin, s.Kubeconfig, "", "top", "node")
		if err != nil || !strings.Contains(out, node) || !strings.Contains(out, "CPU(cores)") {
			t.Fatalf("kubectl 1.%d top node: %v\n%s%s", minor, err, out, errOut)
		}
		t.Logf("kubectl 1.%d top node:\n%s", minor, out)
		out, errOut, err = s.KubectlWith(bin, s.Kubeconfig, "", "top", "pod", "-A", "--containers", "--no-headers")
		if err != nil {
			t.Fatalf("kubectl 1.%d top pod -A --containers: %v\n%s%s", minor, err, out, errOut)
		}
		if m := millicores(containerLine(out, "burn"), 2); m < 120 || m > 260 {
			t.Fatalf("kubectl 1.%d top pod -A --containers: got %q, want work burn burn at 120m to 260m", minor, out)
		}
	}
	if out, _, err := s.Kubectl("get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/work/pods/nope"); err == nil {
		t.Fatalf("metrics of a pod that does not exist: got %s, want NotFound", out)
	}
	s.MustKubectl("delete", "pod", "burn", "-n", "work", "--wait=false")
	testHPA(t, s)
	if t.Failed() {
		t.Logf("server and embedded agent output:\n%s", s.Logs())
	}
}

// containerLine is the line of `kubectl top pod -A --containers` for pod's
// container of the same name, with the namespace column removed.
func containerLine(out, pod string) string {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[1] == pod && f[2] == pod {
			return strings.Join(f[1:], " ")
		}
	}
	return ""
}

// millicores reads the CPU column col (0-based) of a kubectl top line
// ("burn 201m 1Mi"); -1 when it is not there.
func millicores(line string, col int) int {
	f := strings.Fields(line)
	if len(f) <= col || !strings.HasSuffix(f[col], "m") {
		return -1
	}
	m, err := strconv.Atoi(strings.TrimSuffix(f[col], "m"))
	if err != nil {
		return -1
	}
	return m
}

// burnDeployment is a Deployment whose pods run command under a 100m
// request and a 200m limit. It names no replicas (1 by default), so
// applying it again leaves the HPA's count alone.
func burnDeployment(command string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: hpa-burn, namespace: work}
spec:
  selector: {matchLabels: {app: hpa-burn}}
  template:
    metadata: {labels: {app: hpa-burn}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: burn
        image: docker.io/library/busybox:e2e-agent
        imagePullPolicy: Never
        command: ["sh", "-c", %q]
        resources: {limits: {cpu: 200m}, requests: {cpu: 100m}}
`, command)
}

func testHPA(t *testing.T, s *cluster.Server) {
	if _, stderr, err := s.Apply(burnDeployment("while :; do :; done")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	s.MustKubectl("autoscale", "deployment", "hpa-burn", "-n", "work", "--cpu-percent=50", "--min=1", "--max=3")
	s.MustKubectl("patch", "horizontalpodautoscalers.v2.autoscaling", "hpa-burn", "-n", "work", "--type=merge",
		"-p", `{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":6}}}}`)
	replicas := func() string {
		out, _, _ := s.Kubectl("get", "deployment", "hpa-burn", "-n", "work", "-o", "jsonpath={.spec.replicas}")
		return out
	}
	cluster.WaitFor(t, 120*time.Second, func() bool { return replicas() == "3" }, "the HPA to scale hpa-burn to 3")
	t.Logf("scaled up:\n%s", s.MustKubectl("get", "hpa", "hpa-burn", "-n", "work"))
	if _, stderr, err := s.Apply(burnDeployment("sleep 3600")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	idle := time.Now()
	cluster.WaitFor(t, 150*time.Second, func() bool { return replicas() == "1" }, "the HPA to scale hpa-burn back to 1")
	if took := time.Since(idle); took < 6*time.Second {
		t.Fatalf("scaled down %s after the pods idled, want after the 6 s window", took)
	}
	conds := s.MustKubectl("get", "horizontalpodautoscalers.v2.autoscaling", "hpa-burn", "-n", "work", "-o",
		`jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason} {end}`)
	if !strings.Contains(conds, "ScalingActive=True/ValidMetricFound") || !strings.Contains(conds, "AbleToScale=True") {
		t.Fatalf("conditions: got %s", conds)
	}
	t.Logf("scaled down: %s", conds)
}
