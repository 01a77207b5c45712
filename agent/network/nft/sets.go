package nft

import (
	"fmt"
	"time"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
)

// Set is a named set (or verdict map) an owner keeps in bramble's table,
// its elements keyed by Key. With a Timeout it is dynamic: rules fill it
// at run time (the service proxy's ClientIP affinity: `update @set { ip
// saddr }`), each element living Timeout after its last update, and a set
// that exists already keeps its elements across a Replace, so a resync
// does not forget who was talking to whom. Without one its elements are
// exactly Elements (keys as Key lays them out); with Jumps it is a verdict
// map, element i jumping to chain Jumps[i]. With Interval it is an
// interval set of addresses (`flags interval`, KeyAddr), its elements the
// address ranges Ranges (intervals.go).
type Set struct {
	Name     string
	Key      SetKey
	Timeout  time.Duration
	Elements [][]byte
	Jumps    []string
	Interval bool
	Ranges   []Range
}

// SetKey is the type of a set's keys.
type SetKey int

// The key types: an IPv4 address (4 bytes); `ip . ip` (8 bytes);
// `ip . inet_proto . inet_service` (12 bytes: each part padded to 4, the
// protocol in the first byte of its word, the port big-endian in the
// first two of its).
const (
	KeyAddr SetKey = iota
	KeyAddrPair
	KeyAddrProtoPort
)

// elemChunk keeps one element message under netlink's 64 KiB attribute.
const elemChunk = 1000

// SetRef is the set as rules name it in a Lookup or Dynset expression.
func (s Set) SetRef() *nftables.Set {
	ns := &nftables.Set{Name: s.Name, KeyType: nftables.TypeIPAddr}
	switch s.Key {
	case KeyAddrPair:
		ns.KeyType, ns.Concatenation = nftables.MustConcatSetType(nftables.TypeIPAddr, nftables.TypeIPAddr), true
	case KeyAddrProtoPort:
		ns.KeyType, ns.Concatenation = nftables.MustConcatSetType(nftables.TypeIPAddr, nftables.TypeInetProto, nftables.TypeInetService), true
	}
	if s.Jumps != nil {
		ns.IsMap, ns.DataType = true, nftables.TypeVerdict
	}
	if s.Timeout > 0 {
		ns.Dynamic, ns.HasTimeout, ns.Timeout = true, true, s.Timeout
	}
	ns.Interval = s.Interval
	return ns
}

// declareSets queues each set's creation (kept when it exists) and, for a
// static one, the removal of its elements.
func (c *Conn) declareSets(owner Owner, sets []Set) ([]*nftables.Set, error) {
	refs := make([]*nftables.Set, len(sets))
	for i, s := range sets {
		if !owner.owns(s.Name) {
			return nil, fmt.Errorf("nftables: set %q is not named with one of its owner's prefixes %q", s.Name, owner)
		}
		if s.Jumps != nil && len(s.Jumps) != len(s.Elements) {
			return nil, fmt.Errorf("nftables: map %s: %d jumps for %d elements", s.Name, len(s.Jumps), len(s.Elements))
		}
		if s.Interval || s.Ranges != nil {
			if err := checkRanges(s); err != nil {
				return nil, err
			}
		}
		refs[i] = s.SetRef()
		refs[i].Table = c.table
		if err := c.c.AddSet(refs[i], nil); err != nil {
			return nil, fmt.Errorf("nftables: set %s: %w", s.Name, err)
		}
		if s.Timeout == 0 {
			c.c.FlushSet(refs[i])
		}
	}
	return refs, nil
}

// fillSets queues the static sets' elements, in chunks.
func (c *Conn) fillSets(sets []Set, refs []*nftables.Set) error {
	for i, s := range sets {
		elems := rangeElements(s.Ranges)
		if !s.Interval {
			elems = elements(s)
		}
		for lo := 0; lo < len(elems); lo += elemChunk {
			if err := c.c.SetAddElements(refs[i], elems[lo:min(lo+elemChunk, len(elems))]); err != nil {
				return fmt.Errorf("nftables: set %s: %w", s.Name, err)
			}
		}
	}
	return nil
}

// elements are a set's Elements, with their jumps in a verdict map.
func elements(s Set) []nftables.SetElement {
	out := make([]nftables.SetElement, len(s.Elements))
	for j, key := range s.Elements {
		out[j].Key = key
		if s.Jumps != nil {
			out[j].VerdictData = &expr.Verdict{Kind: expr.VerdictJump, Chain: s.Jumps[j]}
		}
	}
	return out
}

// staleSets are the sets of stale not in keep.
func (c *Conn) staleSets(stale []*nftables.Set, keep []Set) []*nftables.Set {
	want := make(map[string]bool, len(keep))
	for _, s := range keep {
		want[s.Name] = true
	}
	var out []*nftables.Set
	for _, s := range stale {
		if !want[s.Name] {
			out = append(out, &nftables.Set{Name: s.Name, Table: c.table})
		}
	}
	return out
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
