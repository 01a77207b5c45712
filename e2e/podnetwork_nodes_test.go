package e2e

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestPodNetworkTwoNodes runs two agents, each in a network namespace of
// its own on one test bridge (the server on the bridge's host address),
// with the overlay on: an HTTP server pod on node na, client pods on node
// nb. nb's pods reach na's pod IP across vxlan.1, both nodes' pods have
// addresses of their node's podCIDR, the server sees the client pod's own
// address (no NAT), and a hostPort answers on na's address from the host.
// Then NetworkPolicy, each step a real connection with a witness that it
// worked just before: default-deny ingress in the server's namespace cuts
// nb -> na; allowing pods labelled role=client lets exactly those through;
// default-deny egress in the clients' namespace cuts them again; deleting
// the policies restores traffic.
func TestPodNetworkTwoNodes(t *testing.T) {
	cluster.NeedNetworkTools(t)
	br := cluster.NewBridge(t)
	na, nb := br.AddNamespace(), br.AddNamespace()
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerOn(t, br.Addr.String())
	token := cluster.JoinToken(t, s)
	const nsA, nsB = "bramble-e2e-2n-a", "bramble-e2e-2n-b"
	a := cluster.StartAgentIn(t, na, s, d, nsA, "--token", token, "--node-name", "na")
	b := cluster.StartAgentIn(t, nb, s, d, nsB, "--token", token, "--node-name", "nb")
	a.WaitReady(t, s, "na")
	b.WaitReady(t, s, "nb")
	cidrA, cidrB := nodeCIDR(t, s, "na"), nodeCIDR(t, s, "nb")
	cluster.ImportNetHelper(t, a.DataDir, d, nsA, netImage)
	cluster.ImportNetHelper(t, b.DataDir, d, nsB, netImage)
	s.MustKubectl("create", "namespace", "srv")
	s.MustKubectl("create", "namespace", "cli")
	const hostPort = 18080
	apply(t, s, twoNodeManifests(hostPort))

	srv := podIPs(t, s, "srv", 2)
	cli := podIPs(t, s, "cli", 2)
	for name, ip := range srv {
		if !cidrA.Contains(ip) {
			t.Errorf("pod srv/%s on na: IP %s, want one of na's podCIDR %s", name, ip, cidrA)
		}
	}
	for name, ip := range cli {
		if !cidrB.Contains(ip) {
			t.Errorf("pod cli/%s on nb: IP %s, want one of nb's podCIDR %s", name, ip, cidrB)
		}
	}
	helper := buildNetHelper(t)
	c := &twoNodes{t: t, helper: helper, url: fmt.Sprintf("http://%s:8080/", srv["web"]),
		client: cluster.TaskPID(t, d, nsB, "client"), other: cluster.TaskPID(t, d, nsB, "other")}

	body := c.waitReach(c.client, true, "client on nb -> web on na")
	if f := strings.Fields(body); len(f) != 2 || f[0] != "web" || !strings.HasPrefix(f[1], cli["client"].String()+":") {
		t.Errorf("web answered %q, want \"web %s:<port>\" (the client pod's own address: no NAT)", body, cli["client"])
	}
	t.Run("hostPort", func(t *testing.T) {
		url := fmt.Sprintf("http://%s:%d/", na.Addr, hostPort)
		if got := mustGet(t, url); !strings.HasPrefix(got, "published ") {
			t.Errorf("hostPort on na's address %s: got %q, want pod published's answer", url, got)
		}
	})
	t.Run("Service", func(t *testing.T) {
		sub := *c
		sub.t = t
		sub.serviceSteps(s, na.Addr, cli["client"])
	})
	t.Run("LoadBalancer", func(t *testing.T) {
		sub := *c
		sub.t = t
		sub.loadBalancerSteps(s, na.Addr)
	})
	t.Run("NetworkPolicy", func(t *testing.T) {
		sub := *c
		sub.t = t // failures end the subtest, not its parent
		sub.policySteps(s)
	})
}

// nodeCIDR waits for the Node's podCIDR.
func nodeCIDR(t *testing.T, s *cluster.Server, node string) netip.Prefix {
	t.Helper()
	var p netip.Prefix
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "node", node, "-o", "jsonpath={.spec.podCIDR}")
		if err != nil {
			return false
		}
		p, err = netip.ParsePrefix(out)
		return err == nil
	}, "node "+node+" to get a podCIDR")
	return p
}

func twoNodeManifests(hostPort int) string {
	// Each container is named as its pod: TaskPID finds it by name.
	pod := func(ns, name, node, labels, cmd, ports string) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: %s, labels: {%s}}
spec:
  nodeName: %s
  terminationGracePeriodSeconds: 1
  containers:
  - name: %[1]s
    image: %[5]s
    imagePullPolicy: Never
    command: %[6]s
    ports: [%[7]s]
`, name, ns, labels, node, netImage, cmd, ports)
	}
	serve := `["nethelper", "serve", ":8080"]`
	sleep := `["sleep", "3600"]`
	return strings.Join([]string{
		pod("srv", "web", "na", "app: web", serve, "{containerPort: 8080}"),
		pod("srv", "published", "na", "app: published", serve, fmt.Sprintf("{containerPort: 8080, hostPort: %d}", hostPort)),
		pod("cli", "client", "nb", "role: client", sleep, ""),
		pod("cli", "other", "nb", "role: other", sleep, ""),
	}, "---\n")
}
