package proxy

import (
	"context"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

var podA, podB, podC = ep{"10.77.0.2", "n1", true}, ep{"10.77.0.3", "n1", true}, ep{"10.77.0.4", "n1", true}

// kernelPlan is the services of TestProxy: web (ClusterIP + NodePort,
// the endpoints given), sticky (ClientIP affinity), local (NodePort with
// externalTrafficPolicy Local; one endpoint here, one on another node)
// and empty (no endpoints).
func kernelPlan(webEndpoints ...ep) *Plan {
	http := map[string]int32{"http": 80}
	target := map[string]int32{"http": 8080}
	return Compile(Input{Node: "n1", NodeIPs: []netip.Addr{addr(nodeIP)}, ClusterCIDR: netip.MustParsePrefix("10.77.0.0/16"),
		Services: []*corev1.Service{
			service("web", "10.43.0.10", http, nodePort("http", 30080)),
			service("sticky", "10.43.0.11", http, affinity),
			service("local", "10.43.0.12", http, nodePort("http", 30081), externalLocal),
			service("empty", "10.43.0.13", http),
			service("empty-udp", "10.43.0.14", map[string]int32{"dns": 53}, udp),
		},
		Slices: []*discoveryv1.EndpointSlice{
			slice("web", "web-1", target, webEndpoints...),
			slice("sticky", "sticky-1", target, podA, podB, podC),
			slice("local", "local-1", target, podA, ep{"10.77.5.5", "n2", true}),
		}})
}

func (n *node) apply(t *testing.T, p *Plan, wantWrite bool) {
	t.Helper()
	wrote, err := n.applier.Apply(context.Background(), p)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if wrote != wantWrite {
		t.Fatalf("apply wrote the kernel: got %v, want %v", wrote, wantWrite)
	}
}

// hits dials addr from ns n times and counts the answering pods, failing
// on an error or a client address other than wantClient (when set).
func hits(t *testing.T, from string, n *node, addr string, times int, wantClient string) map[string]int {
	t.Helper()
	ns := n.out
	if from != "" {
		ns = n.pods[from]
	}
	got := map[string]int{}
	for range times {
		pod, client, err := dial(ns, addr)
		if err != nil {
			t.Fatalf("%s -> %s: %v", ns.Name, addr, err)
		}
		if wantClient != "" && client != wantClient {
			t.Fatalf("%s -> %s: pod %s saw client %s, want %s", ns.Name, addr, pod, client, wantClient)
		}
		got[pod]++
	}
	return got
}

// TestProxy programs real nftables rules in a node namespace and checks
// them with real TCP connections from pods and from outside the node.
func TestProxy(t *testing.T) {
	n := newNode(t)
	n.addPod(t, "a", "10.77.0.2")
	n.addPod(t, "b", "10.77.0.3")
	n.addPod(t, "c", "10.77.0.4")
	n.addPod(t, "client", "10.77.0.9")
	n.apply(t, kernelPlan(podA, podB, podC), true)
	n.apply(t, kernelPlan(podA, podB, podC), false)

	if got := hits(t, "client", n, "10.43.0.10:80", 45, "10.77.0.9"); len(got) != 3 {
		t.Errorf("ClusterIP spread: got answers from %v, want all of a, b, c", got)
	}
	if got := hits(t, "", n, nodeIP+":30080", 30, "10.77.0.1"); len(got) != 3 {
		t.Errorf("NodePort (masqueraded) spread: got %v, want a, b, c", got)
	}
	if got := hits(t, "", n, nodeIP+":30081", 10, outsideIP); got["a"] != 10 {
		t.Errorf("externalTrafficPolicy Local: got %v, want only the local endpoint a", got)
	}
	if got := hits(t, "client", n, "10.43.0.11:80", 20, ""); len(got) != 1 {
		t.Errorf("ClientIP affinity: got answers from %v, want one pod", got)
	}
	if got := hits(t, "a", n, "10.43.0.10:80", 15, ""); len(got) != 3 {
		t.Errorf("hairpin from a pod of the service: got %v, want a, b, c", got)
	}
	if err := refused(n.pods["client"], "10.43.0.13:80", time.Second); err != nil {
		t.Errorf("no endpoints: %v", err)
	}
	if err := refusedUDP(n.pods["client"], "10.43.0.14:53"); err != nil {
		t.Errorf("UDP, no endpoints: %v", err)
	}

	n.apply(t, kernelPlan(podB), true)
	if got := hits(t, "client", n, "10.43.0.10:80", 10, ""); got["b"] != 10 {
		t.Errorf("after scaling web to b only: got %v", got)
	}
	n.apply(t, kernelPlan(ep{"10.77.0.3", "n1", false}), true)
	if err := refused(n.pods["client"], "10.43.0.10:80", time.Second); err != nil {
		t.Errorf("web with only a not-ready endpoint: %v", err)
	}
	if err := n.applier.Remove(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out := n.ns.Run(t, "nft", "list", "table", "inet", "bramble"); len(out) > 40 {
		t.Errorf("after Remove the table still has rules:\n%s", out)
	}
}
