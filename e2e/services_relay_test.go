package e2e

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// relayUsed checks that nb, which runs no pod of web, reaches web through
// na's relay (docs/SERVICES.md, "Endpoints only where they run"): its
// rules DNAT web's ClusterIP to na's relay address (the first address of
// na's pod CIDR) and to none of the pods, as it holds no slice of web;
// na's rules open that relay frontend. The spread subtest proved the three
// replicas answer from nb, so they answer through the relay.
func relayUsed(t *testing.T, s *cluster.Server, na, nb *cluster.Netns, web map[string]netip.Addr) {
	cidr, err := netip.ParsePrefix(s.MustKubectl("get", "node", "na", "-o", "jsonpath={.spec.podCIDR}"))
	if err != nil {
		t.Fatalf("na's podCIDR: %v", err)
	}
	relay := cidr.Masked().Addr().String()
	nbRules := nb.Run("nft", "list", "table", "inet", "bramble")
	if !strings.Contains(nbRules, "dnat ip to "+relay+":") {
		t.Errorf("nb does not DNAT to na's relay %s:\n%s", relay, nbRules)
	}
	for name, ip := range web {
		if strings.Contains(nbRules, "dnat ip to "+ip.String()+":") {
			t.Errorf("nb DNATs to %s (%s) directly: it holds web's slice", name, ip)
		}
	}
	if naRules := na.Run("nft", "list", "table", "inet", "bramble"); !strings.Contains(naRules, relay+" . tcp . ") {
		t.Errorf("na opens no relay frontend on %s:\n%s", relay, naRules)
	}
}
