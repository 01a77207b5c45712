package overlay_test

import (
	"net"
	"testing"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
	"github.com/bramble-edge/bramble/agent/network/nft"
	"github.com/bramble-edge/bramble/agent/network/overlay"
)

// TestForwardedPodTraffic: a pod in a network namespace of its own,
// behind node a's bridge (as the CNI bridge plugin attaches pods to
// cni0), reaches a pod address on node b across vxlan.1 with its own
// address, and node b's host address masqueraded to node a's. Its packets
// are forwarded by node a, so this is the path real pods take: the
// forward hook and forwarding itself, not only locally sent traffic.
func TestForwardedPodTraffic(t *testing.T) {
	a, b := twoNodes(t, overlay.BackendVXLAN)
	a.reconcile(t, a, b)
	b.reconcile(t, a, b)
	_, cluster, _ := net.ParseCIDR("10.42.0.0/16")
	for _, n := range []*node{a, b} {
		n.ns.Run(t, "sysctl", "-qw", "net.ipv4.ip_forward=1")
		c, err := nft.Open(int(n.ns.Handle))
		if err != nil {
			t.Fatal(err)
		}
		if err := overlay.ApplyRules(c, cluster, "pod0", "vxlan.1"); err != nil {
			t.Fatal(err)
		}
	}
	a.ns.Run(t, "ip", "addr", "add", "10.42.1.1/24", "dev", "pod0") // the bridge's gateway address
	pod := &node{name: "pod", ns: netnstest.New(t, "ovp")}
	netnstest.Link(t, pod.ns, "eth0", "10.42.1.7/24", a.ns, "veth-pod", "10.42.1.250/32")
	a.ns.Run(t, "ip", "link", "set", "veth-pod", "master", "pod0")
	a.ns.Run(t, "ip", "addr", "del", "10.42.1.250/32", "dev", "veth-pod")
	pod.ns.Run(t, "ip", "route", "add", "default", "via", "10.42.1.1")

	if seen, err := dial(pod, "10.42.1.7", b, b.podIP); err != nil || seen != "10.42.1.7" {
		t.Errorf("pod -> pod on b: source seen %q, err %v; want 10.42.1.7 (not NATed)", seen, err)
	}
	if seen, err := dial(pod, "10.42.1.7", b, b.ip); err != nil || seen != a.ip {
		t.Errorf("pod -> host b: source seen %q, err %v; want %s (masqueraded)", seen, err, a.ip)
	}
}
