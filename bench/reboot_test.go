package bench

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
)

// rebootPods is how many pods the offline reboot benchmark runs.
const rebootPods = 10

// readyPod is a busybox pod serving HTTP on its own address with an
// httpGet readiness probe against it, as a small web service on a node.
func readyPod(name, node string, port int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
  namespace: default
spec:
  nodeName: %[2]s
  terminationGracePeriodSeconds: 1
  containers:
  - name: web
    image: %[3]s
    imagePullPolicy: Never
    command: ["sh", "-c", "echo ok >/tmp/ok && exec httpd -f -p %[4]d -h /tmp"]
    readinessProbe:
      httpGet: {path: /ok, port: %[4]d}
      periodSeconds: 1
`, name, node, benchImage, port)
}

// BenchmarkOfflineReboot measures the recovery of a node whose host
// rebooted while the server is unreachable, as OpenYurt measured its edge
// autonomy (49.9 s): 10 pods with an httpGet readiness probe run on one
// agent; the server is stopped; then a power cut kills the agent,
// containerd, the shims and the containers and wipes what a reboot wipes
// (containerd's state, runc's state, the cgroups; see
// runtimetest.PowerCut). containerd starts again (untimed, as the host's
// boot does), then the agent: the figure is agent start to every pod
// Running and Ready in the agent's own view (its debug log of the pod
// status it would report), polled every 20 ms. Each iteration is one
// reboot. At the end the server starts again and kubectl must show the
// pods Ready. Budget: <= 10 s.
func BenchmarkOfflineReboot(b *testing.B) {
	e := startAgentSetup(b, "bramble-bench-reboot", "pi-bench-reboot")
	var manifest strings.Builder
	for i := 0; i < rebootPods; i++ {
		manifest.WriteString(readyPod(fmt.Sprintf("web-%d", i), e.node, porttest.Free(b)) + "---\n")
	}
	if _, stderr, err := e.s.Apply(manifest.String()); err != nil {
		b.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	waitPodsReady(b, e.s)
	e.s.Stop()
	var total, worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		took := e.reboot(b)
		total, worst = total+took, max(worst, took)
	}
	b.StopTimer()
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-ready")
	b.ReportMetric(float64(worst.Milliseconds()), "ms-worst")
	e.s.Start()
	waitPodsReady(b, e.s)
}

// reboot power-cuts the node, boots containerd and times the agent's
// start to all pods Ready.
func (e *agentSetup) reboot(b *testing.B) time.Duration {
	b.Helper()
	b.StopTimer()
	e.a.Kill(b)
	if err := e.d.PowerCut(e.ns); err != nil {
		b.Fatalf("power cut: %v", err)
	}
	if err := e.d.Restart(context.Background()); err != nil {
		b.Fatalf("containerd after the power cut: %v", err)
	}
	if n := cluster.RunningTasks(b, e.d, e.ns); n != 0 {
		b.Fatalf("running tasks after the power cut: got %d, want 0", n)
	}
	b.StartTimer()
	begin := time.Now()
	mark := len(e.a.Output())
	e.a.Restart(b)
	for readyInLog(e.a.Output()[mark:]) < rebootPods {
		if time.Since(begin) > 120*time.Second {
			b.Fatalf("after 120s, %d of %d pods Ready; agent output:\n%s", readyInLog(e.a.Output()[mark:]), rebootPods, e.a.Output()[mark:])
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(begin)
	if n := cluster.RunningTasks(b, e.d, e.ns); n != rebootPods {
		b.Fatalf("running tasks after the reboot: got %d, want %d", n, rebootPods)
	}
	return took
}

var podStatusLine = regexp.MustCompile(`msg="pod status" pod=(\S+) phase=(\S+) ready=(\S+)`)

// readyInLog counts the pods whose last status in the agent's log is
// Running and Ready.
func readyInLog(out string) int {
	last := map[string]bool{}
	for _, m := range podStatusLine.FindAllStringSubmatch(out, -1) {
		last[m[1]] = m[2] == "Running" && m[3] == "true"
	}
	n := 0
	for _, ok := range last {
		if ok {
			n++
		}
	}
	return n
}

// waitPodsReady waits until kubectl shows every pod Ready.
func waitPodsReady(b *testing.B, s *cluster.Server) {
	b.Helper()
	cluster.WaitFor(b, 120*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pods", "-o", `jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && strings.Count(out, "True") == rebootPods
	}, "kubectl get pods to show every pod Ready")
}
