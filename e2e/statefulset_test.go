package e2e

import (
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestStatefulSetTwoNodes runs a 3-replica StatefulSet behind a headless
// Service on two real agents (network namespaces on one test bridge, as
// TestServicesTwoNodes): the pods come in order, each only once the one
// before is Ready (a readiness probe with an initial delay makes the gap
// visible); web-1.web resolves from a client pod; scaling to 1 removes
// web-2 before web-1; with partition 2 an update reaches web-2 alone;
// `kubectl rollout undo` takes web-2 back to the first revision. Storage
// (volumeClaimTemplates, the built-in local-path provisioner): each pod
// gets its claim data-web-N, bound to a volume on the pod's node; each pod
// appends its hostname to /data/boots when it starts, and web-1 deleted
// comes back on the same node with its first line still there; the claims
// are kept across the scale down and reused by the pods scaled back up.
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
	apply(t, s, statefulManifests(3))

	st := &stsSteps{t: t, s: s, dataDirs: map[string]string{"na": a.DataDir, "nb": b.DataDir}}
	st.orderedStart(3)
	volumes := st.claims(3)
	c := &svcClient{t: t, pid: cluster.TaskPID(t, d, nsB, "client")}
	st.dns(c)
	st.dataSurvives(volumes["web-1"])
	st.scaleDown()
	if again := st.claims(3); fmt.Sprint(again) != fmt.Sprint(volumes) {
		t.Errorf("volumes after scaling down and up: %v, want the same as before, %v", again, volumes)
	}
	st.partitionAndUndo()
}

// statefulManifests is namespace db: headless Service web, StatefulSet
// web of nethelper servers (Ready 2 s after start; each appends its
// hostname to /data/boots on its claim data first), and a client pod on nb.
func statefulManifests(replicas int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: web, namespace: db}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{name: http, port: 8080}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: db}
spec:
  serviceName: web
  replicas: %[2]d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: web
        image: %[1]s
        imagePullPolicy: Never
        command: ["sh", "-c", "hostname >> /data/boots; exec nethelper serve :8080"]
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 2, periodSeconds: 1}
        volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 64Mi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: db}
spec:
  nodeName: nb
  terminationGracePeriodSeconds: 1
  containers:
  - {name: client, image: %[1]s, imagePullPolicy: Never, command: ["sleep", "3600"]}
`, netImage, replicas)
}
