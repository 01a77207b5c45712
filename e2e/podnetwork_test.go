package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
)

const netImage = "docker.io/library/nethelper:e2e"

// TestPodNetwork runs pods with networks of their own on one agent, with
// the real containerd, runc and CNI plugins: two replicas listening on
// the same containerPort both run, with addresses of the node's pod
// range; the host reaches each (and its hostname is the pod's); two
// containers of a pod talk over localhost; a hostPort answers on the
// node's address; an agent restart keeps the pod's address, and so does
// a start without the server after a simulated reboot (namespaces gone,
// containers killed); a deleted pod's address is free again.
func TestPodNetwork(t *testing.T) {
	const node, ns = "pn-node", "bramble-e2e-podnet"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	a := cluster.StartAgent(t, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", node)
	a.WaitReady(t, s, node)
	cluster.ImportNetHelper(t, a.DataDir, d, ns, netImage)
	s.MustKubectl("create", "namespace", "net")
	cidr := netip.MustParsePrefix(s.MustKubectl("get", "node", node, "-o", "jsonpath={.spec.podCIDR}"))

	hostPort := porttest.Free(t)
	apply(t, s, podNetManifests(node, hostPort))
	ips := waitPodIPs(t, s, "app=web", 2)
	for name, ip := range ips {
		if !cidr.Contains(ip) {
			t.Errorf("pod %s: IP %s, want one of the node's pod range %s", name, ip, cidr)
		}
		if body := mustGet(t, fmt.Sprintf("http://%s/", net.JoinHostPort(ip.String(), "8080"))); !strings.HasPrefix(body, name+" ") {
			t.Errorf("pod %s answered %q, want its hostname (the pod's name) first", name, body)
		}
	}
	t.Run("localhost between containers", func(t *testing.T) { testLocalhost(t, s) })
	t.Run("hostPort", func(t *testing.T) {
		body := mustGet(t, fmt.Sprintf("http://127.0.0.1:%d/", hostPort))
		if !strings.HasPrefix(body, "published ") {
			t.Errorf("hostPort %d on the node's address: got %q, want pod published's answer", hostPort, body)
		}
	})
	t.Run("agent restart keeps addresses", func(t *testing.T) {
		a.Stop(t)
		a.Restart(t)
		a.WaitReady(t, s, node)
		after := waitPodIPs(t, s, "app=web", 2)
		for name, ip := range ips {
			if after[name] != ip {
				t.Errorf("pod %s after the agent's restart: got %s, want %s", name, after[name], ip)
			}
		}
	})
	t.Run("offline reboot", func(t *testing.T) { testOfflineReboot(t, s, a, d, ns, ips) })
	t.Run("deleted pod frees its address", func(t *testing.T) { testAddressFreed(t, s, a, hostPort) })
}

func podNetManifests(node string, hostPort int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: net}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeName: %s
      terminationGracePeriodSeconds: 1
      containers:
      - name: web
        image: %s
        imagePullPolicy: Never
        command: ["nethelper", "serve", ":8080"]
        ports: [{containerPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: published, namespace: net, labels: {app: published}}
spec:
  nodeName: %[1]s
  terminationGracePeriodSeconds: 1
  containers:
  - name: web
    image: %[2]s
    imagePullPolicy: Never
    command: ["nethelper", "serve", ":8080"]
    ports: [{containerPort: 8080, hostPort: %[3]d}]
---
apiVersion: v1
kind: Pod
metadata: {name: pair, namespace: net, labels: {app: pair}}
spec:
  nodeName: %[1]s
  terminationGracePeriodSeconds: 1
  containers:
  - name: server
    image: %[2]s
    imagePullPolicy: Never
    command: ["nethelper", "serve", "127.0.0.1:9090"]
  - name: client
    image: %[2]s
    imagePullPolicy: Never
    command: ["sh", "-c", "nethelper wait http://localhost:9090/ && sleep 3600"]
`, node, netImage, hostPort)
}

// waitPodIPs waits until n pods matching selector run with an address
// each, and returns them by pod name.
func waitPodIPs(t *testing.T, s *cluster.Server, selector string, n int) map[string]netip.Addr {
	t.Helper()
	return runningPodIPs(t, s, n, 90*time.Second, fmt.Sprintf("%d pods %s running with a pod IP", n, selector), "-n", "net", "-l", selector)
}

// mustGet GETs url from the host, retrying for up to 30 s.
func mustGet(t *testing.T, url string) string {
	t.Helper()
	var body string
	cluster.WaitFor(t, 30*time.Second, func() bool {
		c := http.Client{Timeout: 2 * time.Second}
		resp, err := c.Get(url)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		body = string(b)
		return err == nil
	}, "an answer from "+url)
	return body
}
