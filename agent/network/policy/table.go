package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/nftables"

	"github.com/bramble-edge/bramble/agent/network/nft"
)

// TableName is bramble's table; the policy part owns only its "policy-" chains
// and sets in it.
const TableName = "bramble"

// Transaction is what the applier needs of the shared nftables helper
// (agent/network/nft): a connection scoped to one owner's chains and sets in
// table `inet bramble`, and a way to send one batch. Until the helper exists,
// ownTable implements it here.
type Transaction interface {
	// Begin opens a batch that ensures the table and holds it; owned lists the
	// owner's chains and sets already there.
	Begin(prefix string) (conn *nftables.Conn, table *nftables.Table, owned Owned, err error)
	// Commit sends the batch as one transaction.
	Commit(conn *nftables.Conn) error
}

// Owned are the chains and sets of one owner found in the table.
type Owned struct {
	Chains []*nftables.Chain
	Sets   []*nftables.Set
}

// ownTable opens netlink in one network namespace (NetNS 0: the current one).
type ownTable struct{ netns int }

var _ Transaction = ownTable{}

func (o ownTable) Begin(prefix string) (*nftables.Conn, *nftables.Table, Owned, error) {
	var owned Owned
	// Big buffers: at the default 208 KiB one large batch overflows near
	// 200 messages' acknowledgements.
	opts := []nftables.ConnOption{nftables.WithSockOptions(nft.BigBuffers)}
	if o.netns != 0 {
		opts = append(opts, nftables.WithNetNSFd(o.netns))
	}
	conn, err := nftables.New(opts...)
	if err != nil {
		return nil, nil, owned, fmt.Errorf("nftables: %w", err)
	}
	table := &nftables.Table{Family: nftables.TableFamilyINet, Name: TableName}
	chains, err := conn.ListChainsOfTableFamily(nftables.TableFamilyINet)
	if err != nil {
		return nil, nil, owned, fmt.Errorf("list chains of inet %s: %w", TableName, err)
	}
	for _, ch := range chains {
		if ch.Table.Name == TableName && strings.HasPrefix(ch.Name, prefix) {
			ch.Table = table
			owned.Chains = append(owned.Chains, ch)
		}
	}
	if owned.Sets, err = ownedSets(conn, table, prefix); err != nil {
		return nil, nil, owned, err
	}
	conn.AddTable(table)
	return conn, table, owned, nil
}

func ownedSets(conn *nftables.Conn, table *nftables.Table, prefix string) ([]*nftables.Set, error) {
	tables, err := conn.ListTablesOfFamily(nftables.TableFamilyINet)
	if err != nil {
		return nil, fmt.Errorf("list inet tables: %w", err)
	}
	if !slices.ContainsFunc(tables, func(t *nftables.Table) bool { return t.Name == TableName }) {
		return nil, nil
	}
	sets, err := conn.GetSets(table)
	if err != nil {
		return nil, fmt.Errorf("list sets of inet %s: %w", TableName, err)
	}
	var out []*nftables.Set
	for _, s := range sets {
		if strings.HasPrefix(s.Name, prefix) {
			s.Table = table
			out = append(out, s)
		}
	}
	return out, nil
}

func (ownTable) Commit(conn *nftables.Conn) error {
	if err := conn.Flush(); err != nil {
		return fmt.Errorf("nftables transaction on inet %s: %w", TableName, err)
	}
	return nil
}
