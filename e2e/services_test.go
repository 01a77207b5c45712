package e2e

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// The name the test's own upstream DNS server answers, outside the
// cluster domain, and its address (TEST-NET-1, never routed).
const (
	outsideName = "outside.example.test"
	outsideAddr = "192.0.2.7"
)

// TestServicesTwoNodes runs two agents in network namespaces of their own
// on one test bridge, as TestPodNetworkTwoNodes does, both forwarding
// names outside the cluster to a DNS server of the test's own in a third
// namespace (--resolv-conf). In namespace demo: a Deployment of three
// nethelper servers on node na behind Service web (NodePort), a headless
// Service over the same pods, an ExternalName Service, a pod "near" on nb
// behind Service near, and the client pod on nb. Every question is asked
// from inside the client pod (its network and mount namespaces: its own
// /etc/resolv.conf, as a program in the pod would). Last, the server
// stops and nb still resolves and reaches web and near.
func TestServicesTwoNodes(t *testing.T) {
	cluster.NeedNetworkTools(t)
	br := cluster.NewBridge(t)
	na, nb, nu := br.AddNamespace(), br.AddNamespace(), br.AddNamespace()
	queries := startUpstreamDNS(t, nu, outsideName, outsideAddr)
	resolv := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(resolv, []byte("nameserver "+nu.Addr.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerOn(t, br.Addr.String())
	token := cluster.JoinToken(t, s)
	const nsA, nsB = "bramble-e2e-svc-a", "bramble-e2e-svc-b"
	a := cluster.StartAgentIn(t, na, s, d, nsA, "--token", token, "--node-name", "na", "--resolv-conf", resolv)
	b := cluster.StartAgentIn(t, nb, s, d, nsB, "--token", token, "--node-name", "nb", "--resolv-conf", resolv)
	a.WaitReady(t, s, "na")
	b.WaitReady(t, s, "nb")
	cluster.ImportNetHelper(t, a.DataDir, d, nsA, netImage)
	cluster.ImportNetHelper(t, b.DataDir, d, nsB, netImage)
	s.MustKubectl("create", "namespace", "demo")
	apply(t, s, servicesManifests())

	pods := podIPs(t, s, "demo", 5)
	web := map[string]netip.Addr{}
	for name, ip := range pods {
		if strings.HasPrefix(name, "web-") {
			web[name] = ip
		}
	}
	if len(web) != 3 {
		t.Fatalf("pods of Deployment web: got %v, want 3", pods)
	}
	c := &svcClient{t: t, pid: cluster.TaskPID(t, d, nsB, "client")}
	c.clusterIP = s.MustKubectl("get", "service", "-n", "demo", "web", "-o", "jsonpath={.spec.clusterIP}")
	c.nodePort = s.MustKubectl("get", "service", "-n", "demo", "web", "-o", "jsonpath={.spec.ports[0].nodePort}")

	t.Run("names", func(t *testing.T) { c.with(t).names([]netip.Addr{na.Addr, nb.Addr}, web) })
	t.Run("spread", func(t *testing.T) { c.with(t).spread(web) })
	t.Run("relay", func(t *testing.T) { relayUsed(t, s, na, nb, web) })
	t.Run("headless", func(t *testing.T) { c.with(t).headless(web) })
	t.Run("ExternalName", func(t *testing.T) { c.with(t).externalName() })
	t.Run("forwarded", func(t *testing.T) { c.with(t).forwarded(queries) })
	t.Run("expose", func(t *testing.T) { c.with(t).expose(s, web) })
	t.Run("scale", func(t *testing.T) { c.with(t).scale(s) })

	// Offline: the server stops; nb answers names from its local store and
	// its service proxy keeps routing (near's endpoint is on nb itself).
	nearIP := s.MustKubectl("get", "service", "-n", "demo", "near", "-o", "jsonpath={.spec.clusterIP}")
	s.Stop()
	c.offline(nearIP)
}

// servicesManifests is the demo namespace: Deployment web (3 replicas on
// na) behind Services web (NodePort) and web-headless, ExternalName ext,
// pod near on nb behind Service near, and the client pod on nb.
func servicesManifests() string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: demo}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeName: na
      terminationGracePeriodSeconds: 1
      containers:
      - {name: web, image: %[1]s, imagePullPolicy: Never, command: ["nethelper", "serve", ":8080"], ports: [{containerPort: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: demo}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web-headless, namespace: demo}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: demo}
spec: {type: ExternalName, externalName: %[2]s}
---
apiVersion: v1
kind: Pod
metadata: {name: near, namespace: demo, labels: {app: near}}
spec:
  nodeName: nb
  terminationGracePeriodSeconds: 1
  containers:
  - {name: near, image: %[1]s, imagePullPolicy: Never, command: ["nethelper", "serve", ":8080"], ports: [{containerPort: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: near, namespace: demo}
spec:
  selector: {app: near}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: demo}
spec:
  nodeName: nb
  terminationGracePeriodSeconds: 1
  containers:
  - {name: client, image: %[1]s, imagePullPolicy: Never, command: ["sleep", "3600"]}
`, netImage, outsideName)
}
