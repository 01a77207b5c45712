package dns

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	mdns "github.com/miekg/dns"
	"github.com/vishvananda/netlink"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
)

// TestServerOnClusterDNSAddress: in a network namespace standing for a
// node, the dummy device gets the cluster DNS address (twice: idempotent),
// the server binds 10.43.0.10:53 and a client in the namespace resolves a
// service there.
func TestServerOnClusterDNSAddress(t *testing.T) {
	ns := netnstest.New(t, "dns")
	h, err := netlink.NewHandleAt(ns.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ip := netip.MustParseAddr("10.43.0.10")
	var dev string
	for range 2 {
		if dev, err = EnsureDevice(h, DefaultDevice, ip); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("cluster DNS address on %s (lo when the kernel has no dummy driver)", dev)
	if out := ns.Run(t, "ip", "-o", "addr", "show", "dev", dev); strings.Count(out, "10.43.0.10/32") != 1 {
		t.Fatalf("%s addresses, want 10.43.0.10/32 once:\n%s", dev, out)
	}
	s := New(Config{Addr: "10.43.0.10:53"})
	s.SetView(Build(fixture(), "cluster.local", 1))
	if err := ns.Do(func() error { return s.Start(t.Context()) }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	var resp *mdns.Msg
	if err := ns.Do(func() error {
		resp = query(t, "10.43.0.10:53", "udp", "web.shop.svc.cluster.local.", mdns.TypeA)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := rdata(resp.Answer); !slices.Equal(got, []string{"A 10.43.0.20"}) {
		t.Fatalf("got %q", got)
	}
}

func TestEnsureDeviceRefusesOtherLinkKinds(t *testing.T) {
	ns := netnstest.New(t, "dnsb")
	ns.Run(t, "ip", "link", "add", "notdummy", "type", "bridge")
	h, err := netlink.NewHandleAt(ns.Handle)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = EnsureDevice(h, "notdummy", netip.MustParseAddr("10.43.0.10"))
	if err == nil || !strings.Contains(err.Error(), "not dummy") {
		t.Fatalf("got %v, want a refusal naming the link kind", err)
	}
}
