package agent

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
	"github.com/bramble-edge/bramble/mqtt"
)

// TestServicesThroughRelay: with a Service and its summary stored but no
// slice (node-a runs none of its endpoints), the proxy DNATs the ClusterIP
// to the hosting nodes' relays; once node-a hosts (listed in the summary,
// the slice stored) it also opens its own relay frontend.
func TestServicesThroughRelay(t *testing.T) {
	ns := netnstest.New(t, "agr")
	store := openStore(t, t.TempDir())
	a := NewApplier(store, &fakeManager{})
	sum := &mqtt.ServiceSummary{Metadata: mqtt.SummaryMeta{Namespace: "demo", Name: "web"},
		Relays: []mqtt.RelayPort{{Port: "http", Protocol: "TCP", Relay: 33001}},
		Hosts:  []mqtt.SummaryHost{{Node: "node-b", IP: "10.42.5.0", Endpoints: 2}}}
	sumRef := ref(mqtt.ResourceServiceSummaries, "demo", "web")
	apply := func(rev int64, cs ...mqtt.Change) {
		if err := a.Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: rev, Changes: cs}); err != nil {
			t.Fatal(err)
		}
	}
	apply(3, change(t, mqtt.Added, ref(resourceServices, "demo", "web"), webService()), change(t, mqtt.Added, sumRef, sum))
	n := newTestNetwork(t, store)
	_, n.own, _ = net.ParseCIDR("10.42.7.0/24")
	rules := func() string {
		if err := ns.Do(n.syncServices); err != nil {
			t.Fatalf("sync services: %v", err)
		}
		return ns.Run(t, "nft", "list", "table", "inet", "bramble")
	}
	out := rules()
	if !strings.Contains(out, "dnat ip to 10.42.5.0:33001") || strings.Contains(out, "10.42.7.0 . tcp . 33001") {
		t.Errorf("a node without the slice: want the ClusterIP DNATed to node-b's relay and no relay of its own:\n%s", out)
	}
	sum.Hosts = append(sum.Hosts, mqtt.SummaryHost{Node: "node-a", IP: "10.42.7.0", Endpoints: 1})
	slice := webSlice()
	slice.Endpoints[0].NodeName = &n.node
	apply(4, change(t, mqtt.Modified, sumRef, sum), change(t, mqtt.Added, ref(resourceEndpointSlices, "demo", "web-1"), slice))
	out = rules()
	for _, want := range []string{"10.42.7.0 . tcp . 33001", "dnat ip to 10.42.1.7:8080"} {
		if !strings.Contains(out, want) {
			t.Errorf("a hosting node: rules lack %q:\n%s", want, out)
		}
	}
}
