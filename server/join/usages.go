package join

import (
	"fmt"
	"slices"
	"strings"

	nodejoin "github.com/bramble-edge/bramble/join"
)

// Usages a join token may be scoped to, like kubeadm's token --usages:
// UsageJoin lets a machine take a node name that no node holds (a new
// node); UsageRejoin lets a node that joined before, proving it with its
// node password, join again for a new certificate. A token made without
// --usages has both; so has a token stored before usages existed.
const (
	UsageJoin   = "join"
	UsageRejoin = "rejoin"
)

// DefaultUsages are the usages of a token made without --usages.
var DefaultUsages = []string{UsageJoin, UsageRejoin}

// keyUsages is the token Secret's data key holding its usages,
// comma-separated.
const keyUsages = "usages"

// ValidateUsages checks a token's usages: at least one, each known, none
// twice.
func ValidateUsages(usages []string) error {
	if len(usages) == 0 {
		return fmt.Errorf("usages: at least one of %s is required", strings.Join(DefaultUsages, ", "))
	}
	for i, u := range usages {
		if !slices.Contains(DefaultUsages, u) {
			return fmt.Errorf("usages: %q is not a usage; want %s", u, strings.Join(DefaultUsages, " or "))
		}
		if slices.Contains(usages[:i], u) {
			return fmt.Errorf("usages: %q given twice", u)
		}
	}
	return nil
}

// parseUsages reads a stored usages value; empty (a token from before
// usages) means DefaultUsages.
func parseUsages(v string) ([]string, error) {
	if v == "" {
		return slices.Clone(DefaultUsages), nil
	}
	u := strings.Split(v, ",")
	return u, ValidateUsages(u)
}

// Allows reports whether the token may be used for usage.
func (t *TokenInfo) Allows(usage string) bool { return slices.Contains(t.Usages, usage) }

// usageRefusal is the refusal of a join its token is not scoped to.
func usageRefusal(t *TokenInfo, node string, rejoin bool) error {
	if rejoin {
		return &nodejoin.Error{Kind: nodejoin.ErrTokenUsage, Msg: fmt.Sprintf(
			"token %s may not re-join node %s (its usages are %s): join with a token that has usage %q",
			t.ID, node, strings.Join(t.Usages, ","), UsageRejoin)}
	}
	return &nodejoin.Error{Kind: nodejoin.ErrTokenUsage, Msg: fmt.Sprintf(
		"token %s may only re-join nodes that joined before (its usages are %s); node %s is new: join with a token that has usage %q",
		t.ID, strings.Join(t.Usages, ","), node, UsageJoin)}
}
