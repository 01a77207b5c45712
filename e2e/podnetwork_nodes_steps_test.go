package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// twoNodes is TestPodNetworkTwoNodes's clients: the PIDs of the client
// pods' tasks on nb (their network namespaces are /proc/<pid>/ns/net) and
// the host's nethelper, run inside them.
type twoNodes struct {
	t             *testing.T
	helper, url   string
	client, other int
}

// reach GETs the web pod's URL from the network namespace of pid, with a
// 3 s timeout (nethelper's) inside an 8 s one.
func (c *twoNodes) reach(pid int) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "nsenter", fmt.Sprintf("--net=/proc/%d/ns/net", pid), c.helper, "get", c.url).Output()
	return strings.TrimSpace(string(out)), err == nil
}

// waitReach retries for up to 30 s until pid's connection succeeds (want)
// or fails (!want), and returns the last answer.
func (c *twoNodes) waitReach(pid int, want bool, what string) string {
	c.t.Helper()
	var body string
	verb := map[bool]string{true: "succeed", false: "be blocked"}[want]
	cluster.WaitFor(c.t, 30*time.Second, func() bool {
		var ok bool
		body, ok = c.reach(pid)
		return ok == want
	}, fmt.Sprintf("%s to %s", what, verb))
	return body
}

// blocked checks once that pid's connection fails.
func (c *twoNodes) blocked(pid int, what string) {
	c.t.Helper()
	if body, ok := c.reach(pid); ok {
		c.t.Errorf("%s: got through (%q), want it blocked", what, body)
	}
}

// policySteps fences the web pod and the clients step by step; every
// "blocked" follows a success of the same connection.
func (c *twoNodes) policySteps(s *cluster.Server) {
	c.waitReach(c.client, true, "witness: client -> web")
	c.waitReach(c.other, true, "witness: other -> web")
	apply(c.t, s, `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-ingress, namespace: srv}
spec: {podSelector: {}, policyTypes: [Ingress]}
`)
	c.waitReach(c.client, false, "client -> web under default-deny ingress")
	c.blocked(c.other, "other -> web under default-deny ingress")
	apply(c.t, s, `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-clients, namespace: srv}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from: [{namespaceSelector: {}, podSelector: {matchLabels: {role: client}}}]
    ports: [{port: 8080}]
`)
	c.waitReach(c.client, true, "client (role=client) -> web with allow-clients")
	c.blocked(c.other, "other (role=other) -> web with allow-clients")
	apply(c.t, s, `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-egress, namespace: cli}
spec: {podSelector: {}, policyTypes: [Egress]}
`)
	c.waitReach(c.client, false, "client -> web under default-deny egress in cli")
	s.MustKubectl("delete", "networkpolicy", "--all", "-n", "srv")
	s.MustKubectl("delete", "networkpolicy", "--all", "-n", "cli")
	c.waitReach(c.client, true, "client -> web with the policies deleted")
	c.waitReach(c.other, true, "other -> web with the policies deleted")
}

// podIPs waits until n pods of namespace ns run with an address each, and
// returns them by pod name.
func podIPs(t *testing.T, s *cluster.Server, ns string, n int) map[string]netip.Addr {
	t.Helper()
	return runningPodIPs(t, s, n, 60*time.Second, fmt.Sprintf("%d pods of namespace %s running with a pod IP", n, ns), "-n", ns)
}

// runningPodIPs waits until the pods kubectl lists with args are n, all
// Running with an address, and returns the addresses by pod name.
func runningPodIPs(t *testing.T, s *cluster.Server, n int, timeout time.Duration, what string, args ...string) map[string]netip.Addr {
	t.Helper()
	out := map[string]netip.Addr{}
	cluster.WaitFor(t, timeout, func() bool {
		list, _, err := s.Kubectl(append(append([]string{"get", "pods"}, args...), "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.status.podIP}{"\n"}{end}`)...)
		if err != nil {
			return false
		}
		clear(out)
		for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 || f[1] != "Running" {
				return false
			}
			ip, err := netip.ParseAddr(f[2])
			if err != nil {
				return false
			}
			out[f[0]] = ip
		}
		return len(out) == n
	}, what)
	return out
}

// buildNetHelper builds e2e/testdata/nethelper for the host (static).
func buildNetHelper(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "nethelper")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./testdata/nethelper")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build nethelper: %v: %s", err, out)
	}
	return bin
}

// serviceSteps puts a NodePort Service in front of web and reaches it
// across the nodes: from the client pod on nb by ClusterIP (nb's service
// proxy DNATs it; web still sees the client's own address), from the host
// by NodePort on na's address, and by name at nb's cluster DNS, asked
// from inside the client pod's network namespace.
func (c *twoNodes) serviceSteps(s *cluster.Server, nodeA netip.Addr, client netip.Addr) {
	t := c.t
	apply(t, s, `apiVersion: v1
kind: Service
metadata: {name: web, namespace: srv}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`)
	ip := s.MustKubectl("get", "service", "-n", "srv", "web", "-o", "jsonpath={.spec.clusterIP}")
	nodePort := s.MustKubectl("get", "service", "-n", "srv", "web", "-o", "jsonpath={.spec.ports[0].nodePort}")
	svc := *c
	svc.url = fmt.Sprintf("http://%s:80/", ip)
	body := svc.waitReach(c.client, true, "client on nb -> Service web's ClusterIP "+ip)
	if f := strings.Fields(body); len(f) != 2 || f[0] != "web" || !strings.HasPrefix(f[1], client.String()+":") {
		t.Errorf("Service web answered %q, want \"web %s:<port>\"", body, client)
	}
	if got := mustGet(t, fmt.Sprintf("http://%s:%s/", nodeA, nodePort)); !strings.HasPrefix(got, "web ") {
		t.Errorf("NodePort %s on na's address: got %q, want web's answer", nodePort, got)
	}
	name := "web.srv.svc.cluster.local"
	var last string
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, err := exec.Command("nsenter", fmt.Sprintf("--net=/proc/%d/ns/net", c.client), c.helper,
			"lookup", name+"@10.43.0.10:53").CombinedOutput()
		if got := strings.TrimSpace(string(out)); got != last {
			last = got
			t.Logf("%s at nb's cluster DNS: %q", name, last)
		}
		return err == nil && last == ip
	}, fmt.Sprintf("%s to resolve to %s at nb's cluster DNS", name, ip))
}
