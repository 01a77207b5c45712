package proxy

import (
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// TestProxyLoadBalancer checks, with real nftables rules and TCP, what the
// built-in service load balancer (controllers/servicelb) relies on: a
// LoadBalancer whose status.loadBalancer.ingress is the node's own IP
// answers at <node IP>:<service port>, from outside the node and from the
// node itself, besides its NodePort.
func TestProxyLoadBalancer(t *testing.T) {
	n := newNode(t)
	n.addPod(t, "a", "10.77.0.2")
	n.addPod(t, "b", "10.77.0.3")
	lb := func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeLoadBalancer
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: nodeIP}}
	}
	plan := Compile(Input{Node: "n1", NodeIPs: []netip.Addr{addr(nodeIP)}, ClusterCIDR: netip.MustParsePrefix("10.77.0.0/16"),
		Services: []*corev1.Service{service("web", "10.43.0.20", map[string]int32{"http": 8081}, nodePort("http", 30090), lb)},
		Slices: []*discoveryv1.EndpointSlice{slice("web", "web-1", map[string]int32{"http": 8080},
			podA, podB)}})
	n.apply(t, plan, true)

	if got := hits(t, "", n, nodeIP+":8081", 20, ""); len(got) != 2 {
		t.Errorf("LoadBalancer IP from outside: got %v, want a and b", got)
	}
	if got := hits(t, "", n, nodeIP+":30090", 10, ""); len(got) == 0 {
		t.Errorf("NodePort of the LoadBalancer: got %v", got)
	}
	self := &node{out: n.ns}
	if got := hits(t, "", self, nodeIP+":8081", 10, ""); len(got) == 0 {
		t.Errorf("LoadBalancer IP from the node itself: got %v", got)
	}
}
