package join_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
)

// A token scoped with usages does only that: a rejoin-only token cannot
// add a node, a join-only token cannot re-join one; the token list shows
// each token's usages and the nodes that joined with it.
func TestTokenUsagesAndJoinedNodes(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	tc, err := join.NewTokenClientFromFile(c.kubecfg)
	if err != nil {
		t.Fatal(err)
	}
	joinOnly, err := tc.CreateToken(ctx, 0, "provisioning", join.UsageJoin)
	if err != nil {
		t.Fatal(err)
	}
	rejoinOnly, err := tc.CreateToken(ctx, 0, "recovery", join.UsageRejoin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := joinNode(t, c, rejoinOnly, "pi-1"); !errors.Is(err, nodejoin.ErrTokenUsage) || !strings.Contains(err.Error(), `usage "join"`) {
		t.Fatalf("new node with a rejoin-only token: got %v, want ErrTokenUsage naming usage join", err)
	}
	mustJoin(t, c, joinOnly, "pi-1")
	mustJoin(t, c, joinOnly, "pi-2")
	if _, err := joinNode(t, c, joinOnly, "pi-1"); !errors.Is(err, nodejoin.ErrTokenUsage) || !strings.Contains(err.Error(), `usage "rejoin"`) {
		t.Fatalf("re-join with a join-only token: got %v, want ErrTokenUsage naming usage rejoin", err)
	}
	mustJoin(t, c, rejoinOnly, "pi-1")
	if _, err := impostorJoin(c, rejoinOnly, "pi-2"); !errors.Is(err, nodejoin.ErrNodePassword) {
		t.Fatalf("impostor with a rejoin token: got %v, want ErrNodePassword", err)
	}

	list, err := tc.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ usages, nodes []string }{
		"provisioning": {[]string{"join"}, []string{"pi-2"}},
		"recovery":     {[]string{"rejoin"}, []string{"pi-1"}},
	}
	for _, ti := range list {
		w := want[ti.Description]
		if !slices.Equal(ti.Usages, w.usages) || !slices.Equal(ti.Nodes, w.nodes) {
			t.Errorf("token %q: usages %v nodes %v, want %v and %v", ti.Description, ti.Usages, ti.Nodes, w.usages, w.nodes)
		}
	}
	if _, err := tc.CreateToken(ctx, 0, "", "sign"); err == nil || !strings.Contains(err.Error(), `"sign" is not a usage`) {
		t.Fatalf("unknown usage: got %v, want an error naming it", err)
	}
}

func TestValidateUsages(t *testing.T) {
	for _, tc := range []struct {
		usages []string
		want   string
	}{
		{[]string{"join"}, ""},
		{[]string{"join", "rejoin"}, ""},
		{nil, "at least one"},
		{[]string{"join", "join"}, "given twice"},
		{[]string{"authentication"}, `"authentication" is not a usage`},
	} {
		err := join.ValidateUsages(tc.usages)
		if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want))) {
			t.Errorf("ValidateUsages(%v): got %v, want %q", tc.usages, err, tc.want)
		}
	}
}
