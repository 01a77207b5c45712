package e2e

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// loadBalancerSteps puts a LoadBalancer Service in front of web (on na
// only): the built-in service load balancer gives it na's address, and
// only na's, in status.loadBalancer.ingress, and na's service proxy
// answers there at the Service's own port (not only at its NodePort),
// from the host.
func (c *twoNodes) loadBalancerSteps(s *cluster.Server, nodeA netip.Addr) {
	t := c.t
	const port = 18081
	apply(t, s, fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: web-lb, namespace: srv}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: %d, targetPort: 8080}]
`, port))
	cluster.WaitFor(t, 30*time.Second, func() bool {
		got, _, _ := s.Kubectl("get", "service", "-n", "srv", "web-lb", "-o",
			"jsonpath={range .status.loadBalancer.ingress[*]}{.ip} {end}")
		return strings.TrimSpace(got) == nodeA.String()
	}, fmt.Sprintf("web-lb's ingress to be na's address %s, alone", nodeA))
	if out := s.MustKubectl("get", "service", "-n", "srv", "web-lb"); !strings.Contains(out, nodeA.String()) {
		t.Errorf("kubectl get svc shows no EXTERNAL-IP %s:\n%s", nodeA, out)
	}
	url := fmt.Sprintf("http://%s:%d/", nodeA, port)
	if body := mustGet(t, url); !strings.HasPrefix(body, "web ") {
		t.Errorf("LoadBalancer web-lb at %s: got %q, want web's answer", url, body)
	}
}
