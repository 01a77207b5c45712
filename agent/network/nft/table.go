// Package nft is bramble's one door to nftables: a connection (to the
// current network namespace or another), the table `inet bramble`, and
// "replace the chains I own" as one atomic transaction. Each part of the
// agent that writes rules (the overlay's masquerade, NetworkPolicy, the
// service proxy) owns a set of chains named with its own prefix and only
// ever flushes and refills those; nothing here touches any other table.
//
// Atomicity: Replace queues the table, every chain of the owner (created if
// missing), a flush of each and all their rules, and the deletion of the
// owner's chains no longer wanted, and sends them as one netlink batch.
// The kernel applies a batch entirely or not at all, so a packet sees
// either the old rules or the new ones, never a half-written set.
package nft

import (
	"fmt"
	"strings"

	"github.com/google/nftables"
)

// TableName is bramble's table; its family is inet (IPv4 and IPv6).
const TableName = "bramble"

// Chain is one chain an owner wants, with all its rules in order. A base
// chain has Hook, Type and Priority; a regular chain (a jump target) has
// none of them.
type Chain struct {
	Name     string
	Hook     *nftables.ChainHook
	Type     nftables.ChainType
	Priority *nftables.ChainPriority
	// Policy of a base chain; nil is accept.
	Policy *nftables.ChainPolicy
	Rules  [][]Expr
}

// Conn talks to nftables in one network namespace.
type Conn struct {
	c     *nftables.Conn
	table *nftables.Table
}

// Open returns a Conn for the network namespace of the file descriptor
// netns (an open /proc/<pid>/ns/net or /run/netns/<name>), or of the
// calling process when netns is negative.
func Open(netns int) (*Conn, error) {
	opts := []nftables.ConnOption{nftables.WithSockOptions(BigBuffers)}
	if netns >= 0 {
		opts = append(opts, nftables.WithNetNSFd(netns))
	}
	c, err := nftables.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("nftables: %w", err)
	}
	return &Conn{c: c, table: &nftables.Table{Name: TableName, Family: nftables.TableFamilyINet}}, nil
}

// Owner is the name prefixes of one owner's chains (the overlay's
// "nat-postrouting" and "forward", NetworkPolicy's "policy-", the service
// proxy's "svc-"). Prefixes of different owners must not overlap.
type Owner []string

func (o Owner) owns(name string) bool {
	for _, p := range o {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// names are the names of chains, all owner's.
func (o Owner) names(chains []Chain) (map[string]bool, error) {
	want := map[string]bool{}
	for _, ch := range chains {
		if !o.owns(ch.Name) {
			return nil, fmt.Errorf("nftables: chain %q is not named with one of its owner's prefixes %q", ch.Name, o)
		}
		want[ch.Name] = true
	}
	return want, nil
}

// Replace makes owner's chains exactly chains, in one transaction: every
// chain of owner that is not in chains is deleted (after the others are
// refilled, so jumps to it are gone first). Every chain must be owner's.
func (c *Conn) Replace(owner Owner, chains []Chain) error {
	return c.ReplaceWithSets(owner, chains, nil)
}

// ReplaceWithSets is Replace for an owner that also keeps named sets
// (sets.go): the sets are ensured before the chains' rules that use them,
// and the owner's sets no longer wanted are deleted after the chains.
func (c *Conn) ReplaceWithSets(owner Owner, chains []Chain, sets []Set) error {
	want, err := owner.names(chains)
	if err != nil {
		return err
	}
	stale, err := c.ownedChains(owner)
	if err != nil {
		return err
	}
	staleSets, err := c.ownedSets(owner)
	if err != nil {
		return err
	}
	if len(chains) == 0 && len(sets) == 0 && len(stale) == 0 && len(staleSets) == 0 {
		return nil // nothing there, nothing wanted: the kernel is not touched
	}
	c.c.AddTable(c.table)
	// Sets before the rules that use them; chains before the verdict map
	// elements that jump to them.
	refs, err := c.declareSets(owner, sets)
	if err != nil {
		return err
	}
	added := make([]*nftables.Chain, len(chains))
	for i, ch := range chains {
		added[i] = c.c.AddChain(c.chain(ch))
		c.c.FlushChain(added[i])
	}
	if err := c.fillSets(sets, refs); err != nil {
		return err
	}
	for i, ch := range chains {
		for _, exprs := range ch.Rules {
			c.c.AddRule(&nftables.Rule{Table: c.table, Chain: added[i], Exprs: exprs})
		}
	}
	gone := c.staleSets(staleSets, sets)
	for _, s := range gone {
		c.c.FlushSet(s) // a map's elements may jump to a chain deleted next
	}
	c.delChains(stale, want)
	for _, s := range gone {
		c.c.DelSet(s)
	}
	if err := c.c.Flush(); err != nil {
		return fmt.Errorf("nftables: replace the %q chains of table inet %s: %w", owner, TableName, err)
	}
	return nil
}

// delChains queues the deletion of the stale chains not wanted: all are
// flushed before any is deleted, since one may still jump to another.
func (c *Conn) delChains(stale []string, want map[string]bool) {
	var refs []*nftables.Chain
	for _, name := range stale {
		if !want[name] {
			ref := &nftables.Chain{Name: name, Table: c.table}
			c.c.FlushChain(ref)
			refs = append(refs, ref)
		}
	}
	for _, ref := range refs {
		c.c.DelChain(ref)
	}
}

func (c *Conn) chain(ch Chain) *nftables.Chain {
	nc := &nftables.Chain{Name: ch.Name, Table: c.table}
	if ch.Hook != nil {
		nc.Hooknum, nc.Type, nc.Priority = ch.Hook, ch.Type, ch.Priority
		policy := nftables.ChainPolicyAccept
		if ch.Policy != nil {
			policy = *ch.Policy
		}
		nc.Policy = &policy
	}
	return nc
}

// ownedChains lists owner's chains in bramble's table (none when the
// table does not exist yet).
func (c *Conn) ownedChains(owner Owner) ([]string, error) {
	all, err := c.c.ListChainsOfTableFamily(nftables.TableFamilyINet)
	if err != nil {
		return nil, fmt.Errorf("nftables: list chains: %w", err)
	}
	var out []string
	for _, ch := range all {
		if ch.Table != nil && ch.Table.Name == TableName && owner.owns(ch.Name) {
			out = append(out, ch.Name)
		}
	}
	return out, nil
}

// DeleteTable removes bramble's table and every rule in it (uninstall,
// tests); a missing table is no error.
func (c *Conn) DeleteTable() error {
	tables, err := c.c.ListTablesOfFamily(nftables.TableFamilyINet)
	if err != nil {
		return fmt.Errorf("nftables: list tables: %w", err)
	}
	for _, t := range tables {
		if t.Name == TableName {
			c.c.DelTable(c.table)
			if err := c.c.Flush(); err != nil {
				return fmt.Errorf("nftables: delete table inet %s: %w", TableName, err)
			}
		}
	}
	return nil
}

// Probe asks the kernel for its inet tables: an error says nftables is
// not usable here (no nf_tables, or no permission).
func (c *Conn) Probe() error {
	if _, err := c.c.ListTablesOfFamily(nftables.TableFamilyINet); err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	return nil
}
