package proxy

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// summary is a summary of ns/name relaying port "http" (TCP) at relay,
// hosted by "node=ip=count" entries.
func summary(name string, relay int32, hosts ...mqtt.SummaryHost) *mqtt.ServiceSummary {
	return &mqtt.ServiceSummary{Metadata: mqtt.SummaryMeta{Namespace: "ns", Name: name},
		Relays: []mqtt.RelayPort{{Port: "http", Protocol: "TCP", Relay: relay}}, Hosts: hosts}
}

func compileRelay(svc *corev1.Service, sum *mqtt.ServiceSummary, slices ...*discoveryv1.EndpointSlice) ServicePort {
	p := Compile(Input{Node: "n1", NodeIPs: []netip.Addr{addr("192.0.2.1")}, RelayIP: addr("10.42.0.0"),
		ClusterCIDR: netip.MustParsePrefix("10.42.0.0/16"), Services: []*corev1.Service{svc}, Slices: slices,
		Summaries: []*mqtt.ServiceSummary{sum}})
	return p.Ports[0]
}

func TestCompileRelayTargets(t *testing.T) {
	sum := summary("s", 31000, mqtt.SummaryHost{Node: "n2", IP: "10.42.1.0", Endpoints: 2},
		mqtt.SummaryHost{Node: "n3", IP: "10.42.2.0", Endpoints: 1})
	got := compileRelay(service("s", "10.43.0.5", web), sum)
	want := endpointsOf("10.42.1.0:31000", "10.42.1.0:31000", "10.42.2.0:31000")
	if !reflect.DeepEqual(got.Cluster, want) || got.Relay != nil {
		t.Errorf("no slices here: cluster %v relay %v, want targets %v (weighted by count) and no relay frontend", got.Cluster, got.Relay, want)
	}
	itp := corev1.ServiceInternalTrafficPolicyLocal
	got = compileRelay(service("s", "10.43.0.5", web, func(s *corev1.Service) { s.Spec.InternalTrafficPolicy = &itp }), sum)
	if len(got.Cluster) != 0 {
		t.Errorf("internalTrafficPolicy Local: got targets %v, want none (only local endpoints count)", got.Cluster)
	}
	got = compileRelay(service("s", "10.43.0.5", web), summary("s", 31000, sum.Hosts...),
		slice("s", "s1", web8k, ep{"10.42.1.5", "n2", true}))
	if !reflect.DeepEqual(got.Cluster, endpointsOf("10.42.1.5:8080")) {
		t.Errorf("with slices held the endpoints win over the summary: got %v", got.Cluster)
	}
	other := summary("s", 31000, sum.Hosts...)
	other.Relays[0].Port = "other"
	if got = compileRelay(service("s", "10.43.0.5", web), other); len(got.Cluster) != 0 {
		t.Errorf("summary without this port's relay: got targets %v, want none", got.Cluster)
	}
}

func TestCompileRelayFrontend(t *testing.T) {
	sum := summary("s", 31000, mqtt.SummaryHost{Node: "n1", IP: "10.42.0.0", Endpoints: 1},
		mqtt.SummaryHost{Node: "n2", IP: "10.42.1.0", Endpoints: 1})
	got := compileRelay(service("s", "10.43.0.5", web, affinity), sum,
		slice("s", "s1", web8k, ep{"10.42.0.7", "n1", true}, ep{"10.42.1.7", "n2", true}))
	if want := []Frontend{{addr("10.42.0.0"), 31000}}; !reflect.DeepEqual(got.Relay, want) {
		t.Errorf("relay frontend: got %v, want %v", got.Relay, want)
	}
	if want := endpointsOf("10.42.0.7:8080"); !reflect.DeepEqual(got.Relayed, want) {
		t.Errorf("relayed endpoints: got %v, want only the local %v", got.Relayed, want)
	}
	if len(got.Cluster) != 2 {
		t.Errorf("cluster endpoints of a hosting node: got %v, want both from its slices", got.Cluster)
	}
	r := Render(&Plan{ClusterCIDR: netip.MustParsePrefix("10.42.0.0/16"), Ports: []ServicePort{got}})
	var relayChain bool
	for _, c := range r.Chains {
		if strings.HasPrefix(c.Name, "svc-r-") {
			relayChain = true
			if len(c.Rules) != 3 { // guard, affinity, DNAT
				t.Errorf("relay chain: %d rules, want 3 (guard, affinity lookup, pick)", len(c.Rules))
			}
		}
	}
	if !relayChain {
		t.Error("no svc-r-* chain rendered")
	}
}

// TestRenderRelayTargetsAffinity: repeated targets (weights) get one
// affinity rule and one affinity set each.
func TestRenderRelayTargetsAffinity(t *testing.T) {
	sum := summary("s", 31000, mqtt.SummaryHost{Node: "n2", IP: "10.42.1.0", Endpoints: 3})
	r := Render(&Plan{Ports: []ServicePort{compileRelay(service("s", "10.43.0.5", web, affinity), sum)}})
	var sets int
	for _, s := range r.Sets {
		if strings.HasPrefix(s.Name, "svc-a-") {
			sets++
		}
	}
	for _, c := range r.Chains {
		if strings.HasPrefix(c.Name, "svc-c-") && len(c.Rules) != 4 { // 1 affinity + 3 weighted picks
			t.Errorf("cluster chain: %d rules, want 4", len(c.Rules))
		}
	}
	if sets != 1 {
		t.Errorf("affinity sets: got %d, want 1", sets)
	}
}
