package nft_test

import (
	"net"
	"strings"
	"testing"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
	"github.com/bramble-edge/bramble/agent/network/nft"
)

func openIn(t *testing.T, ns *netnstest.NS) *nft.Conn {
	t.Helper()
	c, err := nft.Open(int(ns.Handle))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func acceptFrom(cidr string) nft.Chain {
	_, n, _ := net.ParseCIDR(cidr)
	return nft.Chain{Name: "a-fwd", Hook: nftables.ChainHookForward, Type: nftables.ChainTypeFilter,
		Priority: nftables.ChainPriorityFilter,
		Rules:    [][]nft.Expr{nft.Rule(nft.IPv4(), nft.SrcIn(n, true), nft.Accept())}}
}

// TestReplaceOwnsOnlyItsChains: an owner's second Replace swaps its rules,
// deletes the chain it no longer wants, and leaves another owner's chains
// and other tables alone; DeleteTable removes bramble's table only.
func TestReplaceOwnsOnlyItsChains(t *testing.T) {
	ns := netnstest.New(t, "nft")
	ns.Run(t, "nft", "add table inet other; add chain inet other keep")
	c := openIn(t, ns)
	a, b := nft.Owner{"a-"}, nft.Owner{"b-"}
	extra := nft.Chain{Name: "a-extra", Rules: [][]nft.Expr{nft.Return()}}
	if err := c.Replace(a, []nft.Chain{acceptFrom("10.42.0.0/16"), extra}); err != nil {
		t.Fatal(err)
	}
	if err := c.Replace(b, []nft.Chain{{Name: "b-mine", Rules: [][]nft.Expr{nft.Accept()}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Replace(a, []nft.Chain{acceptFrom("10.50.0.0/16")}); err != nil {
		t.Fatal(err)
	}
	got := ns.Run(t, "nft", "list", "table", "inet", "bramble")
	for _, want := range []string{"chain a-fwd", "type filter hook forward priority filter; policy accept;",
		"ip saddr 10.50.0.0/16 accept", "chain b-mine"} {
		if !strings.Contains(got, want) {
			t.Errorf("ruleset lacks %q:\n%s", want, got)
		}
	}
	for _, gone := range []string{"10.42.0.0/16", "a-extra"} {
		if strings.Contains(got, gone) {
			t.Errorf("ruleset still has %q:\n%s", gone, got)
		}
	}
	if err := c.Replace(a, []nft.Chain{{Name: "b-theirs"}}); err == nil {
		t.Error("Replace took another owner's chain name; want an error")
	}
	if err := c.DeleteTable(); err != nil {
		t.Fatal(err)
	}
	rest := ns.Run(t, "nft", "list", "ruleset")
	if strings.Contains(rest, "bramble") || !strings.Contains(rest, "table inet other") {
		t.Errorf("after DeleteTable: got\n%s\nwant table inet other only", rest)
	}
	if err := c.DeleteTable(); err != nil {
		t.Errorf("DeleteTable of a missing table: %v", err)
	}
}

// TestReplaceIsAtomic: a transaction with one bad rule changes nothing.
func TestReplaceIsAtomic(t *testing.T) {
	ns := netnstest.New(t, "nft")
	c := openIn(t, ns)
	a := nft.Owner{"a-"}
	if err := c.Replace(a, []nft.Chain{acceptFrom("10.42.0.0/16")}); err != nil {
		t.Fatal(err)
	}
	bad := nft.Chain{Name: "a-bad", Rules: [][]nft.Expr{{&jumpNowhere}}}
	if err := c.Replace(a, []nft.Chain{acceptFrom("10.60.0.0/16"), bad}); err == nil {
		t.Fatal("Replace with a jump to a missing chain: got no error")
	}
	got := ns.Run(t, "nft", "list", "table", "inet", "bramble")
	if !strings.Contains(got, "10.42.0.0/16") || strings.Contains(got, "10.60.0.0/16") {
		t.Errorf("a failed Replace changed the rules:\n%s", got)
	}
}

var jumpNowhere = expr.Verdict{Kind: expr.VerdictJump, Chain: "a-missing"}
