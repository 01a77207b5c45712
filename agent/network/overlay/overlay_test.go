package overlay_test

import (
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent/network/overlay"
)

// TestVXLANPodToPod: two nodes in two network namespaces reach each
// other's pod addresses across vxlan.1, the receiver sees the sending
// pod's address (no NAT), and a node removed from the list loses its
// route, neighbour and FDB entry (and the traffic stops).
func TestVXLANPodToPod(t *testing.T) {
	a, b := twoNodes(t, overlay.BackendVXLAN)
	a.reconcile(t, a, b)
	b.reconcile(t, a, b)
	seen, err := dial(b, b.podIP, a, a.podIP)
	if err != nil || seen != b.podIP {
		t.Fatalf("pod b -> pod a: source seen %q, err %v; want %s", seen, err, b.podIP)
	}
	link := b.ns.Run(t, "ip", "-d", "link", "show", "vxlan.1")
	for _, want := range []string{"vxlan id 1 ", "local 10.99.0.2", "dstport 8472", "nolearning", "mtu 1450"} {
		if !strings.Contains(link, want) {
			t.Errorf("vxlan.1 of b lacks %q:\n%s", want, link)
		}
	}
	checkEntries(t, b, a, true)
	b.reconcile(t, b) // a left the cluster
	checkEntries(t, b, a, false)
	if _, err := dial(b, b.podIP, a, a.podIP); err == nil {
		t.Error("pod b -> pod a still connects after a's routes were removed")
	}
	a.reconcile(t, a, b) // Reconcile is idempotent; b coming back restores the path
	b.reconcile(t, a, b)
	if seen, err := dial(a, a.podIP, b, b.podIP); err != nil || seen != a.podIP {
		t.Errorf("pod a -> pod b after rejoin: source seen %q, err %v; want %s", seen, err, a.podIP)
	}
}

// checkEntries checks n's route, neighbour and FDB entry for remote are
// there (or gone).
func checkEntries(t *testing.T, n, remote *node, present bool) {
	t.Helper()
	mac := remote.mac.String()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ip", "route", "show", "proto", "98"}, remote.podCIDR + " via 10.42.1.0 dev vxlan.1 onlink"},
		{[]string{"ip", "neigh", "show", "dev", "vxlan.1"}, "10.42.1.0 lladdr " + mac + " PERMANENT"},
		{[]string{"bridge", "fdb", "show", "dev", "vxlan.1"}, mac + " dst " + remote.ip + " self permanent"},
	} {
		got := n.ns.Run(t, c.args...)
		if strings.Contains(got, c.want) != present {
			t.Errorf("%s: present %v, want %v, of %q in:\n%s", strings.Join(c.args, " "), !present, present, c.want, got)
		}
	}
}

// TestHostGWPodToPod: host-gw routes each podCIDR straight to the
// remote node's IP; no vxlan device.
func TestHostGWPodToPod(t *testing.T) {
	a, b := twoNodes(t, overlay.BackendHostGW)
	a.reconcile(t, a, b)
	b.reconcile(t, a, b)
	if seen, err := dial(a, a.podIP, b, b.podIP); err != nil || seen != a.podIP {
		t.Fatalf("pod a -> pod b: source seen %q, err %v; want %s", seen, err, a.podIP)
	}
	if got := a.ns.Run(t, "ip", "route", "show", "proto", "98"); !strings.Contains(got, "10.42.2.0/24 via 10.99.0.2 dev eth-a") {
		t.Errorf("a's routes: got\n%s\nwant 10.42.2.0/24 via 10.99.0.2", got)
	}
	if _, err := a.ns.Try("ip", "link", "show", "vxlan.1"); err == nil {
		t.Error("host-gw left a vxlan.1 device")
	}
	if err := a.ov.Teardown(); err != nil {
		t.Fatal(err)
	}
	if got := a.ns.Run(t, "ip", "route", "show", "proto", "98"); got != "" {
		t.Errorf("after Teardown: routes %q, want none", got)
	}
}
