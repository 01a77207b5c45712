package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestStatefulSetTwoNodes runs a 3-replica StatefulSet behind a headless
// Service on two real agents (network namespaces on one test bridge, as
// TestServicesTwoNodes): the pods come in order, each only once the one
// before is Ready (a readiness probe with an initial delay makes the gap
// visible); web-1.web resolves from a client pod; scaling to 1 removes
// web-2 before web-1; with partition 2 an update reaches web-2 alone;
// `kubectl rollout undo` takes web-2 back to the first revision. A second
// set, with volumeClaimTemplates, gets a claim data-vol-N per pod.
func TestStatefulSetTwoNodes(t *testing.T) {
	cluster.NeedNetworkTools(t)
	br := cluster.NewBridge(t)
	na, nb := br.AddNamespace(), br.AddNamespace()
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerOn(t, br.Addr.String())
	token := cluster.JoinToken(t, s)
	const nsA, nsB = "bramble-e2e-sts-a", "bramble-e2e-sts-b"
	a := cluster.StartAgentIn(t, na, s, d, nsA, "--token", token, "--node-name", "na")
	b := cluster.StartAgentIn(t, nb, s, d, nsB, "--token", token, "--node-name", "nb")
	a.WaitReady(t, s, "na")
	b.WaitReady(t, s, "nb")
	cluster.ImportNetHelper(t, a.DataDir, d, nsA, netImage)
	cluster.ImportNetHelper(t, b.DataDir, d, nsB, netImage)
	s.MustKubectl("create", "namespace", "db")
	apply(t, s, statefulManifests("web", 3, ""))

	st := &stsSteps{t: t, s: s}
	st.orderedStart(3)
	c := &svcClient{t: t, pid: cluster.TaskPID(t, d, nsB, "client")}
	st.dns(c)
	st.scaleDown()
	st.partitionAndUndo()
	st.claims()
}

// statefulManifests is, in namespace db, headless Service name and
// StatefulSet name of nethelper servers (Ready 2 s after start, with
// extra after the container: its further fields, then the set's), and a
// client pod on nb.
func statefulManifests(name string, replicas int, extra string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %[4]s, namespace: db}
spec:
  clusterIP: None
  selector: {app: %[4]s}
  ports: [{name: http, port: 8080}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: %[4]s, namespace: db}
spec:
  serviceName: %[4]s
  replicas: %[2]d
  selector: {matchLabels: {app: %[4]s}}
  template:
    metadata: {labels: {app: %[4]s}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: web
        image: %[1]s
        imagePullPolicy: Never
        command: ["nethelper", "serve", ":8080"]
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 2, periodSeconds: 1}
%[3]s---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: db}
spec:
  nodeName: nb
  terminationGracePeriodSeconds: 1
  containers:
  - {name: client, image: %[1]s, imagePullPolicy: Never, command: ["sleep", "3600"]}
`, netImage, replicas, extra, name)
}

// claimTemplates is the container's mount of claim data and the
// StatefulSet's volumeClaimTemplates.
var claimTemplates = strings.Join([]string{
	"        volumeMounts: [{name: data, mountPath: /data}]",
	"  volumeClaimTemplates:",
	"  - metadata: {name: data}",
	"    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 64Mi}}}",
	""}, "\n")
