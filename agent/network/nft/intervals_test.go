package nft_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/nftables/expr"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
	"github.com/bramble-edge/bramble/agent/network/nft"
)

func span(lo, hi string) nft.Range {
	return nft.Range{Lo: netip.MustParseAddr(lo), Hi: netip.MustParseAddr(hi)}
}

// acceptFromSet is a chain accepting sources in the named set.
func acceptFromSet(set string) nft.Chain {
	return nft.Chain{Name: "a-in", Rules: [][]nft.Expr{nft.Rule(nft.IPv4(), []nft.Expr{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 12, Len: 4},
		&expr.Lookup{SourceRegister: 1, SetName: set}}, nft.Accept())}}
}

// TestIntervalSets: an interval set holds address ranges (a CIDR with a
// hole cut out, adjacent ranges, one reaching 255.255.255.255), a second
// Replace swaps them, an empty one is kept, and ranges out of order or
// overlapping are refused before the kernel is touched.
func TestIntervalSets(t *testing.T) {
	ns := netnstest.New(t, "nft")
	c := openIn(t, ns)
	a := nft.Owner{"a-"}
	block := nft.Set{Name: "a-block", Interval: true, Ranges: []nft.Range{
		span("10.0.0.0", "10.0.0.127"), span("10.0.0.192", "10.0.0.255"), // 10.0.0.0/24 except 10.0.0.128/26
		span("10.0.1.0", "10.0.1.255"), span("10.0.2.0", "10.0.3.255"), // adjacent
		span("255.255.255.0", "255.255.255.255")}}
	empty := nft.Set{Name: "a-empty", Interval: true}
	if err := c.ReplaceWithSets(a, []nft.Chain{acceptFromSet("a-block")}, []nft.Set{block, empty}); err != nil {
		t.Fatal(err)
	}
	got := ns.Run(t, "nft", "list", "table", "inet", "bramble")
	for _, want := range []string{"flags interval", "10.0.0.0/25", "10.0.0.192/26", "10.0.1.0/24", "10.0.2.0/23",
		"255.255.255.0/24", "set a-empty", "ip saddr @a-block accept"} {
		if !strings.Contains(got, want) {
			t.Errorf("ruleset lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "10.0.0.128") {
		t.Errorf("the except range 10.0.0.128/26 is in the set:\n%s", got)
	}
	block.Ranges = []nft.Range{span("192.168.0.0", "192.168.0.0")}
	if err := c.ReplaceWithSets(a, []nft.Chain{acceptFromSet("a-block")}, []nft.Set{block}); err != nil {
		t.Fatal(err)
	}
	got = ns.Run(t, "nft", "list", "table", "inet", "bramble")
	if !strings.Contains(got, "192.168.0.0") || strings.Contains(got, "10.0.2.0/23") || strings.Contains(got, "a-empty") {
		t.Errorf("after the second Replace: got\n%s\nwant only 192.168.0.0 in a-block, no a-empty", got)
	}
	for name, bad := range map[string][]nft.Range{
		"overlap":    {span("10.0.0.0", "10.0.0.255"), span("10.0.0.128", "10.0.1.0")},
		"descending": {span("10.0.1.0", "10.0.1.255"), span("10.0.0.0", "10.0.0.255")},
		"backwards":  {span("10.0.0.9", "10.0.0.1")},
		"ipv6":       {span("fd00::1", "fd00::2")},
	} {
		s := nft.Set{Name: "a-block", Interval: true, Ranges: bad}
		if err := c.ReplaceWithSets(a, []nft.Chain{acceptFromSet("a-block")}, []nft.Set{s}); err == nil || !strings.Contains(err.Error(), "a-block") {
			t.Errorf("%s: got %v, want an error naming set a-block", name, err)
		}
	}
	if after := ns.Run(t, "nft", "list", "table", "inet", "bramble"); after != got {
		t.Errorf("refused sets changed the ruleset:\n%s\nwant\n%s", after, got)
	}
}
