package join

import (
	"context"
	"errors"
	"slices"

	"github.com/bramble-edge/bramble/datastore"
)

// Nodes lists, sorted, the nodes that hold a current certificate: the
// identities an external broker must let in (broker.MosquittoSync).
func (r *NodeCertRegistry) Nodes() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for node, e := range r.entries {
		if e.serial != nil {
			out = append(out, node)
		}
	}
	slices.Sort(out)
	return out
}

// hasCert reports whether node holds a current certificate.
func (r *NodeCertRegistry) hasCert(node string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.entries[node].serial != nil
}

func (r *NodeCertRegistry) changed(node string) {
	if r.cfg.OnChange != nil {
		r.cfg.OnChange(node)
	}
}

// presenceChanges names the nodes that hold a current certificate in
// exactly one of was and now.
func presenceChanges(was, now map[string]certEntry) []string {
	var out []string
	for node, e := range was {
		if (e.serial != nil) != (now[node].serial != nil) {
			out = append(out, node)
		}
	}
	for node, e := range now {
		if _, ok := was[node]; !ok && e.serial != nil {
			out = append(out, node)
		}
	}
	return out
}

// nodeExists reports whether node's Node object is stored.
func nodeExists(ctx context.Context, store datastore.Store, node string) (bool, error) {
	_, err := store.Get(ctx, nodes.Key("", node))
	if errors.Is(err, datastore.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
