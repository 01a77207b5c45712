package policy

import (
	"context"
	"fmt"
	"sync"

	"github.com/bramble-edge/bramble/agent/network/nft"
)

// TableName is bramble's table, which agent/network/nft writes for every
// owner; the policy part owns only its "policy-" chains and sets in it.
const TableName = nft.TableName

// Owner is the policy part as an owner of table `inet bramble`.
var Owner = nft.Owner{Prefix}

// Table is what the applier needs of the shared nftables package: one
// owner's chains and sets (interval sets and verdict maps included) made
// exactly those given, in one transaction. *nft.Conn is one; tests wrap it.
type Table interface {
	ReplaceWithSets(owner nft.Owner, chains []nft.Chain, sets []nft.Set) error
}

var _ Table = (*nft.Conn)(nil)

// Applier writes Rulesets into the kernel, each in one transaction.
type Applier struct {
	cfg   Config
	mu    sync.Mutex
	table Table
}

// Config chooses where the Applier works.
type Config struct {
	// NetNSFd is an open network namespace to program (0: the agent's own).
	NetNSFd int
	// Table replaces the connection to nftables the Applier opens itself.
	Table Table
}

// NewApplier makes an Applier; nothing touches the kernel until Apply.
func NewApplier(cfg Config) *Applier {
	return &Applier{cfg: cfg, table: cfg.Table}
}

// Apply replaces every policy chain, set and map with the Ruleset's in one
// transaction (agent/network/nft's ReplaceWithSets): packets see either the
// old rules or the new, never a mix, never none. A Ruleset that isolates
// no pod is no rules at all: a node without NetworkPolicies has nothing of
// the policy part in its nftables.
func (a *Applier) Apply(ctx context.Context, rs *Ruleset) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if rs != nil && len(rs.Ingress) == 0 && len(rs.Egress) == 0 {
		rs = nil // nothing isolated: no rules at all, not even the base chains
	}
	table, err := a.open()
	if err != nil {
		return err
	}
	chains, sets := Render(rs)
	if err := table.ReplaceWithSets(Owner, chains, sets); err != nil {
		return fmt.Errorf("network policy: %w", err)
	}
	return nil
}

// Remove deletes every policy chain, set and map (clean exit, uninstall),
// in one transaction; the table stays for its other owners.
func (a *Applier) Remove(ctx context.Context) error {
	return a.Apply(ctx, nil)
}

// open connects to nftables in the configured namespace, once.
func (a *Applier) open() (Table, error) {
	if a.table != nil {
		return a.table, nil
	}
	netns := a.cfg.NetNSFd
	if netns == 0 {
		netns = -1 // nft.Open: the calling process's namespace
	}
	c, err := nft.Open(netns)
	if err != nil {
		return nil, fmt.Errorf("network policy: %w", err)
	}
	a.table = c
	return c, nil
}
