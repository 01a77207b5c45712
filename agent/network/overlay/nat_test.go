package overlay_test

import (
	"net"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent/network/nft"
	"github.com/bramble-edge/bramble/agent/network/overlay"
)

// TestMasquerade: with the overlay's rules, a pod reaching outside the
// cluster CIDR arrives from its node's address, while pod-to-pod traffic
// across vxlan.1 keeps the pod's address. The witness: before the rules,
// the outside host sees the pod address.
func TestMasquerade(t *testing.T) {
	a, b := twoNodes(t, overlay.BackendVXLAN)
	a.reconcile(t, a, b)
	b.reconcile(t, a, b)
	if seen, err := dial(a, a.podIP, b, b.ip); err != nil || seen != a.podIP {
		t.Fatalf("witness, no rules: pod a -> host b: source seen %q, err %v; want %s", seen, err, a.podIP)
	}
	_, cluster, _ := net.ParseCIDR("10.42.0.0/16")
	for _, n := range []*node{a, b} {
		c, err := nft.Open(int(n.ns.Handle))
		if err != nil {
			t.Fatal(err)
		}
		if err := overlay.ApplyRules(c, cluster, "cni0", "vxlan.1"); err != nil {
			t.Fatalf("%s: ApplyRules: %v", n.name, err)
		}
		if err := overlay.ApplyRules(c, cluster, "cni0", "vxlan.1"); err != nil {
			t.Fatalf("%s: ApplyRules again: %v", n.name, err)
		}
	}
	if seen, err := dial(a, a.podIP, b, b.ip); err != nil || seen != a.ip {
		t.Errorf("pod a -> host b: source seen %q, err %v; want %s (masqueraded)", seen, err, a.ip)
	}
	if seen, err := dial(a, a.podIP, b, b.podIP); err != nil || seen != a.podIP {
		t.Errorf("pod a -> pod b: source seen %q, err %v; want %s (not NATed)", seen, err, a.podIP)
	}
	got := a.ns.Run(t, "nft", "list", "table", "inet", "bramble")
	for _, want := range []string{
		"chain nat-postrouting {", "type nat hook postrouting priority srcnat; policy accept;",
		"ip saddr 10.42.0.0/16 ip daddr 10.42.0.0/16 return",
		"ip saddr 10.42.0.0/16 ip daddr 224.0.0.0/4 return",
		`ip saddr 10.42.0.0/16 oifname != "cni0" oifname != "vxlan.1" masquerade fully-random`,
		"chain forward {", "type filter hook forward priority filter - 10; policy accept;",
		"ip saddr 10.42.0.0/16 accept", "ip daddr 10.42.0.0/16 accept",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ruleset lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "masquerade") != 1 {
		t.Errorf("ApplyRules twice: want one masquerade rule, got\n%s", got)
	}
}
