package cluster

import (
	"net/netip"
	"os/exec"
	"testing"
	"time"
)

// TestNamespacesOnOneBridge puts two namespaces on one test bridge: each
// reaches the other and the host; a namespace whose link is cut, or
// which drops every packet, is unreachable until healed. Real interfaces,
// real nftables; needs root and busybox (for ping).
func TestNamespacesOnOneBridge(t *testing.T) {
	if _, err := exec.LookPath("busybox"); err != nil {
		t.Fatal("busybox missing: this test pings with it (busybox-static, hack/deps.sh)")
	}
	b := NewBridge(t)
	n1, n2 := b.AddNamespace(), b.AddNamespace()
	if n1.Addr == n2.Addr || !b.Prefix.Contains(n1.Addr) || !b.Prefix.Contains(n2.Addr) {
		t.Fatalf("addresses %s and %s: want two different ones in %s", n1.Addr, n2.Addr, b.Prefix)
	}
	reach := func(from *Netns, to netip.Addr) bool {
		return from.Command("busybox", "ping", "-c", "1", "-W", "1", to.String()).Run() == nil
	}
	for _, c := range []struct {
		from *Netns
		to   netip.Addr
	}{{n1, n2.Addr}, {n2, n1.Addr}, {n1, b.Addr}} {
		if !reach(c.from, c.to) {
			t.Fatalf("%s cannot reach %s over the bridge", c.from.Addr, c.to)
		}
	}
	n2.Cut()
	if reach(n1, n2.Addr) {
		t.Fatal("the cut namespace still answers")
	}
	n2.Heal()
	WaitFor(t, 10*time.Second, func() bool { return reach(n1, n2.Addr) }, "the healed namespace to answer again")
	n2.Loss(100)
	if reach(n1, n2.Addr) {
		t.Fatal("a namespace dropping 100 % of its packets still answers")
	}
	if n2.Dropped() == 0 {
		t.Fatal("the loss rule counted no dropped packet")
	}
	n2.Loss(0)
	if !reach(n1, n2.Addr) {
		t.Fatal("a namespace whose loss rule was removed does not answer")
	}
}
