package proxy

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/bramble-edge/bramble/agent/network/nft"
)

// Applier programs Plans into the kernel, one nftables transaction each,
// and leaves the kernel alone when the Plan has not changed.
type Applier struct {
	conn *nft.Conn
	mu   sync.Mutex
	last *Plan
}

// NewApplier opens nftables in the network namespace netns (an open
// namespace file's descriptor; negative: the agent's own).
func NewApplier(netns int) (*Applier, error) {
	c, err := nft.Open(netns)
	if err != nil {
		return nil, fmt.Errorf("service proxy: %w", err)
	}
	return &Applier{conn: c}, nil
}

// Apply makes the proxy's chains and sets exactly p's, in one
// transaction: a packet sees the old services or the new, never a mix. It
// reports whether the kernel was written (false: p equals the last Plan).
func (a *Applier) Apply(ctx context.Context, p *Plan) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if a.last != nil && reflect.DeepEqual(a.last, p) {
		return false, nil
	}
	var r Rules // no service: no rules at all, not even the base chains
	if len(p.Ports) > 0 {
		r = Render(p)
	}
	if err := a.conn.ReplaceWithSets(Owner, r.Chains, r.Sets); err != nil {
		a.last = nil // unknown state: the next Apply writes again
		return false, fmt.Errorf("service proxy: %w", err)
	}
	a.last = p
	return true, nil
}

// Remove deletes every chain and set of the proxy (clean exit,
// uninstall); the table stays for its other owners.
func (a *Applier) Remove(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	a.last = nil
	if err := a.conn.ReplaceWithSets(Owner, nil, nil); err != nil {
		return fmt.Errorf("service proxy: remove: %w", err)
	}
	return nil
}
