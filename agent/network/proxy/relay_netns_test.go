package proxy

import (
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// relayPlan is TestProxyRelay's node n1: it hosts `hosted` (a and b
// here, a third endpoint on n2) and opens its relay at 10.77.9.0:31000;
// `remote` has no slice here, only a summary naming two hosting nodes
// whose relay addresses are (for the test) the pods b (3 endpoints) and
// c (1), relaying at 8080.
func relayPlan() *Plan {
	http, target := map[string]int32{"http": 80}, map[string]int32{"http": 8080}
	return Compile(Input{Node: "n1", NodeIPs: []netip.Addr{addr(nodeIP)}, ClusterCIDR: netip.MustParsePrefix("10.77.0.0/16"),
		RelayIP:  addr("10.77.9.0"),
		Services: []*corev1.Service{service("hosted", "10.43.0.20", http), service("remote", "10.43.0.21", http)},
		Slices:   []*discoveryv1.EndpointSlice{slice("hosted", "hosted-1", target, podA, podB, ep{"10.77.5.5", "n2", true})},
		Summaries: []*mqtt.ServiceSummary{
			summary("hosted", 31000, mqtt.SummaryHost{Node: "n1", IP: "10.77.9.0", Endpoints: 2},
				mqtt.SummaryHost{Node: "n2", IP: "10.77.8.0", Endpoints: 1}),
			summary("remote", 8080, mqtt.SummaryHost{Node: "n2", IP: "10.77.0.3", Endpoints: 3},
				mqtt.SummaryHost{Node: "n3", IP: "10.77.0.4", Endpoints: 1}),
		}})
}

// TestProxyRelay checks both halves of the relay in the kernel: a hosting
// node's relay frontend reaches only its own endpoints and keeps the
// client's address, refusing sources outside the cluster; a node without
// the slices DNATs the ClusterIP to the hosting nodes' relays, weighted by
// their counts.
func TestProxyRelay(t *testing.T) {
	n := newNode(t)
	n.addPod(t, "a", "10.77.0.2")
	n.addPod(t, "b", "10.77.0.3")
	n.addPod(t, "c", "10.77.0.4")
	n.addPod(t, "client", "10.77.0.9")
	n.apply(t, relayPlan(), true)

	if got := hits(t, "client", n, "10.77.9.0:31000", 30, "10.77.0.9"); len(got) != 2 || got["c"] != 0 {
		t.Errorf("relay frontend: got answers from %v, want a and b only, each seeing the client's own address", got)
	}
	if err := refused(n.out, "10.77.9.0:31000", time.Second); err != nil {
		t.Errorf("relay frontend from outside the cluster: %v", err)
	}
	got := hits(t, "client", n, "10.43.0.21:80", 60, "10.77.0.9")
	if got["b"] <= got["c"] || got["c"] == 0 || got["a"] != 0 {
		t.Errorf("ClusterIP through the relays: got %v, want b (3 endpoints) well ahead of c (1), never a", got)
	}
}
