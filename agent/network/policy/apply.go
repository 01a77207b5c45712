package policy

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
)

// Priorities of the two base chains at hook forward: after the overlay's
// `forward` chain (filter). Accept ends only one base chain, so a packet an
// egress rule accepts still meets the destination's ingress rules.
const (
	egressPriority  = 10
	ingressPriority = 11
)

// Applier writes Rulesets into the kernel, each in one transaction.
type Applier struct {
	tx Transaction
	mu sync.Mutex
}

// Config chooses where the Applier works.
type Config struct {
	// NetNSFd is an open network namespace to program (0: the agent's own).
	NetNSFd int
	// Transaction replaces the built-in table access (the shared nft helper).
	Transaction Transaction
}

// NewApplier makes an Applier; nothing touches the kernel until Apply.
func NewApplier(cfg Config) *Applier {
	tx := cfg.Transaction
	if tx == nil {
		tx = ownTable{netns: cfg.NetNSFd}
	}
	return &Applier{tx: tx}
}

// Apply replaces every policy chain, set and map with the Ruleset's in one
// transaction: packets see either the old rules or the new, never a mix,
// never none. A Ruleset that isolates no pod is no rules at all: a node
// without NetworkPolicies has nothing of the policy part in its nftables.
func (a *Applier) Apply(ctx context.Context, rs *Ruleset) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if rs != nil && len(rs.Ingress) == 0 && len(rs.Egress) == 0 {
		rs = nil // nothing isolated: no rules at all, not even the base chains
	}
	conn, table, owned, err := a.tx.Begin(Prefix)
	if err != nil {
		return err
	}
	if rs == nil && len(owned.Chains) == 0 && len(owned.Sets) == 0 {
		return nil // nothing there, nothing wanted: the kernel is not touched
	}
	keep := clearOwned(conn, owned, rs)
	b := &batch{conn: conn, table: table, sets: map[string]*nftables.Set{}}
	if err := b.build(rs, keep); err != nil {
		return err
	}
	return a.tx.Commit(conn)
}

// Remove deletes every policy chain, set and map (clean exit, uninstall),
// in one transaction; the table stays for its other owners.
func (a *Applier) Remove(ctx context.Context) error {
	return a.Apply(ctx, nil)
}

// clearOwned queues the removal of the policy part's rules, sets and chains;
// chains the new Ruleset uses again (by name) are emptied, not deleted, and
// returned, as are the base chains when rs is not nil.
func clearOwned(conn *nftables.Conn, owned Owned, rs *Ruleset) map[string]*nftables.Chain {
	wanted := map[string]bool{}
	if rs != nil {
		wanted[IngressChain], wanted[EgressChain] = true, true
		for _, ch := range rs.Chains {
			wanted[ch.Name] = true
		}
	}
	keep := map[string]*nftables.Chain{}
	for _, ch := range owned.Chains {
		conn.FlushChain(ch)
		if wanted[ch.Name] {
			keep[ch.Name] = ch
		}
	}
	for _, s := range owned.Sets {
		conn.DelSet(s)
	}
	for _, ch := range owned.Chains {
		if !wanted[ch.Name] {
			conn.DelChain(ch)
		}
	}
	return keep
}

// batch builds one transaction's additions.
type batch struct {
	conn   *nftables.Conn
	table  *nftables.Table
	chains map[string]*nftables.Chain
	sets   map[string]*nftables.Set
}

func (b *batch) build(rs *Ruleset, keep map[string]*nftables.Chain) error {
	if rs == nil {
		return nil
	}
	b.chains = keep
	in := b.baseChain(IngressChain, ingressPriority)
	out := b.baseChain(EgressChain, egressPriority)
	for _, ch := range rs.Chains {
		if _, ok := b.chains[ch.Name]; !ok {
			b.chains[ch.Name] = b.conn.AddChain(&nftables.Chain{Name: ch.Name, Table: b.table})
		}
	}
	for _, s := range rs.Sets {
		if err := b.addSet(s); err != nil {
			return err
		}
	}
	for _, ch := range rs.Chains {
		for _, r := range ch.Rules {
			b.conn.AddRule(&nftables.Rule{Table: b.table, Chain: b.chains[ch.Name], Exprs: b.ruleExprs(r)})
		}
	}
	if err := b.addMap(in, IngressMap, rs.Ingress, dstOffset); err != nil {
		return err
	}
	return b.addMap(out, EgressMap, rs.Egress, srcOffset)
}

// baseChain ensures a base chain at hook forward that accepts by default and
// lets established and related packets through first.
func (b *batch) baseChain(name string, prio nftables.ChainPriority) *nftables.Chain {
	ch, ok := b.chains[name]
	if !ok {
		accept := nftables.ChainPolicyAccept
		ch = b.conn.AddChain(&nftables.Chain{Name: name, Table: b.table, Type: nftables.ChainTypeFilter,
			Hooknum: nftables.ChainHookForward, Priority: nftables.ChainPriorityRef(prio), Policy: &accept})
		b.chains[name] = ch
	}
	b.conn.AddRule(&nftables.Rule{Table: b.table, Chain: ch, Exprs: establishedExprs()})
	return ch
}

// addMap adds a verdict map from pod address to chain, and the base chain's
// rule that looks the packet's address up in it.
func (b *batch) addMap(base *nftables.Chain, name string, entries []Entry, offset uint32) error {
	m := &nftables.Set{Table: b.table, Name: name, IsMap: true, KeyType: nftables.TypeIPAddr, DataType: nftables.TypeVerdict}
	elems := make([]nftables.SetElement, 0, len(entries))
	for _, e := range entries {
		ip := e.IP.As4()
		elems = append(elems, nftables.SetElement{Key: ip[:],
			VerdictData: &expr.Verdict{Kind: expr.VerdictJump, Chain: e.Chain}})
	}
	if err := b.conn.AddSet(m, elems); err != nil {
		return fmt.Errorf("map %s: %w", name, err)
	}
	b.conn.AddRule(&nftables.Rule{Table: b.table, Chain: base, Exprs: vmapExprs(m, offset)})
	return nil
}

// addSet adds an interval set of addresses: a start element per range and an
// interval-end element after it (none when the range reaches the top).
func (b *batch) addSet(s Set) error {
	ns := &nftables.Set{Table: b.table, Name: s.Name, KeyType: nftables.TypeIPAddr, Interval: true}
	elems := make([]nftables.SetElement, 0, 2*len(s.Ranges))
	for _, r := range s.Ranges {
		lo := r.Lo.As4()
		elems = append(elems, nftables.SetElement{Key: lo[:]})
		if next := r.Hi.Next(); next.IsValid() && next.Is4() {
			end := next.As4()
			elems = append(elems, nftables.SetElement{Key: end[:], IntervalEnd: true})
		}
	}
	if err := b.conn.AddSet(ns, elems); err != nil {
		return fmt.Errorf("set %s: %w", s.Name, err)
	}
	b.sets[s.Name] = ns
	return nil
}
