//go:build helm

package helm

import (
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// busybox is the image the test imports into the node's containerd.
const busybox = "docker.io/library/busybox:e2e-agent"

// waiterDeployment is ready only when its pod runs on a real node:
// maxUnavailable 0, so Helm waits for one ready replica.
const waiterDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Release.Name }}}
spec:
  replicas: 1
  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: ` + busybox + `
        imagePullPolicy: Never
        command: ["sleep", "3600"]
`

// waiterTest is the chart's `helm test` pod; it exits with .Values.exit.
const waiterTest = `apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-test
  annotations: {"helm.sh/hook": test, "helm.sh/hook-delete-policy": before-hook-creation}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: check
    image: ` + busybox + `
    imagePullPolicy: Never
    command: ["sh", "-c", "echo checked; exit {{ .Values.exit | default 0 }}"]
`

// TestHelmWaitAndTest runs a server with its embedded agent on a private
// containerd: `helm install --wait` returns once the Deployment's pod
// really runs, and `helm test` runs the chart's test pod to Succeeded
// (and reports a failing one).
func TestHelmWaitAndTest(t *testing.T) {
	const node, ctrNS = "pi-helm", "bramble-e2e-helm"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerWithAgent(t, d, ctrNS, node)
	cluster.WaitFor(t, 60e9, func() bool {
		out, _, err := s.Kubectl("get", "node", node, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && out == "True"
	}, "the embedded agent's Node to be Ready")
	cluster.ImportBusybox(t, s.DataDir, d, ctrNS, busybox)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, s, v)
			ns := "wait-" + v[:2]
			chart := e.writeChart("waiter", map[string]string{
				"Chart.yaml":              "apiVersion: v2\nname: waiter\nversion: 0.1.0\n",
				"templates/deploy.yaml":   waiterDeployment,
				"templates/tests/ok.yaml": waiterTest,
			})
			e.ok("install", "w", chart, "-n", ns, "--create-namespace", "--wait", "--timeout", "3m")
			if got := e.kubectl("", "get", "deploy", "w", "-n", ns, "-o", "jsonpath={.status.readyReplicas}"); got != "1" {
				t.Fatalf("helm install --wait returned with %q ready replicas, want 1", got)
			}
			wantContains(t, e.ok("test", "w", "-n", ns, "--logs"), "Phase:", "Succeeded", "checked")
			e.ok("upgrade", "w", chart, "-n", ns, "--set", "exit=3", "--wait", "--timeout", "3m")
			out, err := e.run("test", "w", "-n", ns)
			if err == nil {
				t.Fatalf("helm test of a pod exiting 3 passed:\n%s", out)
			}
			wantContains(t, out, "w-test", "failed")
			e.ok("uninstall", "w", "-n", ns, "--wait", "--timeout", "2m")
		})
	}
	if t.Failed() {
		t.Logf("server and embedded agent output:\n%s", s.Logs())
	}
}
