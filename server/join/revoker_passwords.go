package join

import (
	"context"
	"fmt"
	"strings"

	"github.com/bramble-edge/bramble/datastore"
)

// PasswordForgetter drops a node's password (*NodePasswords).
type PasswordForgetter interface {
	Forget(ctx context.Context, node string) error
}

// WithPasswords makes the revoker forget a node's password when its Node
// is deleted, so the name is free for another machine; call it before
// Start. It returns v.
func (v *NodeRevoker) WithPasswords(p PasswordForgetter) *NodeRevoker {
	v.passwords = p
	return v
}

// forgetOrphans forgets the passwords of nodes that have neither a Node
// in live nor a current certificate: their Node was deleted while no
// server watched. A node between its join and its Node's registration
// holds a certificate and keeps its password.
func (v *NodeRevoker) forgetOrphans(ctx context.Context, live map[string]bool) error {
	if v.passwords == nil {
		return nil
	}
	names, err := passwordNodes(ctx, v.certs.store)
	if err != nil {
		return err
	}
	for _, node := range names {
		if live[node] || v.certs.current(node) {
			continue
		}
		if err := v.passwords.Forget(ctx, node); err != nil {
			return err
		}
		v.log.Warn("forgot the password of a node whose Node was deleted while no server watched", "node", node)
	}
	return nil
}

// passwordNodes lists the nodes that have a password Secret, by the
// Secrets' names.
func passwordNodes(ctx context.Context, store datastore.Store) ([]string, error) {
	prefix := secrets.Key(TokenNamespace, "")
	var out []string
	opts := datastore.ListOptions{}
	for {
		res, err := store.List(ctx, prefix, opts)
		if err != nil {
			return nil, fmt.Errorf("list node passwords: %w", err)
		}
		for _, kv := range res.Items {
			name := strings.TrimPrefix(kv.Key, prefix)
			if node, ok := strings.CutSuffix(name, PasswordSecretSuffix); ok && node != "" {
				out = append(out, node)
			}
		}
		if res.Continue == "" {
			return out, nil
		}
		opts = datastore.ListOptions{Revision: res.Revision, Continue: res.Continue}
	}
}

// current reports whether node holds a certificate on record.
func (r *NodeCertRegistry) current(node string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[node]
	return ok && e.serial != nil
}

// registered reports whether node holds a certificate on record and its
// Node has existed while it did.
func (r *NodeCertRegistry) registered(node string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[node]
	return ok && e.serial != nil && e.seen
}
