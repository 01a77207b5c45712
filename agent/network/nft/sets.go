package nft

import (
	"fmt"
	"time"

	"github.com/google/nftables"
)

// Set is a named set of IPv4 addresses (or, Concat, of address pairs
// `ip . ip`) an owner keeps in bramble's table. With a Timeout it is
// dynamic: rules fill it at run time (the service proxy's ClientIP
// affinity: `update @set { ip saddr }`), each element living Timeout after
// its last update, and a set that exists already keeps its elements across
// a Replace, so a resync does not forget who was talking to whom. Without
// one its elements are exactly Elements (keys of 4 or 8 bytes).
type Set struct {
	Name     string
	Timeout  time.Duration
	Concat   bool
	Elements [][]byte
}

// elemChunk keeps one element message under netlink's 64 KiB attribute.
const elemChunk = 1000

// SetRef is the set as rules name it in a Lookup or Dynset expression.
func (s Set) SetRef() *nftables.Set {
	ns := &nftables.Set{Name: s.Name, KeyType: nftables.TypeIPAddr}
	if s.Concat {
		ns.KeyType, ns.Concatenation = nftables.MustConcatSetType(nftables.TypeIPAddr, nftables.TypeIPAddr), true
	}
	if s.Timeout > 0 {
		ns.Dynamic, ns.HasTimeout, ns.Timeout = true, true, s.Timeout
	}
	return ns
}

func (c *Conn) addSets(owner Owner, sets []Set) error {
	for _, s := range sets {
		if !owner.owns(s.Name) {
			return fmt.Errorf("nftables: set %q is not named with one of its owner's prefixes %q", s.Name, owner)
		}
		ns := s.SetRef()
		ns.Table = c.table
		if err := c.c.AddSet(ns, nil); err != nil {
			return fmt.Errorf("nftables: set %s: %w", s.Name, err)
		}
		if s.Timeout > 0 {
			continue
		}
		c.c.FlushSet(ns)
		for i := 0; i < len(s.Elements); i += elemChunk {
			elems := make([]nftables.SetElement, 0, elemChunk)
			for _, k := range s.Elements[i:min(i+elemChunk, len(s.Elements))] {
				elems = append(elems, nftables.SetElement{Key: k})
			}
			if err := c.c.SetAddElements(ns, elems); err != nil {
				return fmt.Errorf("nftables: set %s: %w", s.Name, err)
			}
		}
	}
	return nil
}

// delSets queues the deletion of the stale sets not in keep.
func (c *Conn) delSets(stale []*nftables.Set, keep []Set) {
	want := make(map[string]bool, len(keep))
	for _, s := range keep {
		want[s.Name] = true
	}
	for _, s := range stale {
		if !want[s.Name] {
			c.c.DelSet(&nftables.Set{Name: s.Name, Table: c.table})
		}
	}
}

// ownedSets lists owner's sets in bramble's table (none when the table
// does not exist yet).
func (c *Conn) ownedSets(owner Owner) ([]*nftables.Set, error) {
	tables, err := c.c.ListTablesOfFamily(nftables.TableFamilyINet)
	if err != nil {
		return nil, fmt.Errorf("nftables: list tables: %w", err)
	}
	found := false
	for _, t := range tables {
		found = found || t.Name == TableName
	}
	if !found {
		return nil, nil
	}
	all, err := c.c.GetSets(c.table)
	if err != nil {
		return nil, fmt.Errorf("nftables: list sets of inet %s: %w", TableName, err)
	}
	var out []*nftables.Set
	for _, s := range all {
		if owner.owns(s.Name) {
			out = append(out, s)
		}
	}
	return out, nil
}
