package join

import (
	"context"
	"log/slog"
	"strings"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// NodeRevoker revokes a node's certificate when its Node object is
// deleted, for the API and the broker alike (both ask the registry). It
// follows the Nodes with a listwatch.Follower, so no watch failure or
// compaction stops it; and every list it makes (at Start, and after the
// watch fell behind compaction) is reconciled with the certificate
// records: a certificate whose Node was seen and is gone, deleted while no
// server watched, is revoked then.
type NodeRevoker struct {
	certs     *NodeCertRegistry
	passwords PasswordForgetter // nil: passwords are not followed
	log       *slog.Logger
	f         *listwatch.Follower
	cfg       listwatch.Config
}

// NewNodeRevoker makes a revoker of certs' certificates; Start runs it.
// cfg tunes its Follower (and the pause between failed writes).
func NewNodeRevoker(store datastore.Store, certs *NodeCertRegistry, cfg listwatch.Config) *NodeRevoker {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	v := &NodeRevoker{certs: certs, log: cfg.Logger, cfg: cfg}
	v.f = listwatch.New(store, nodes.Prefix(""), revokeHandler{v}, cfg)
	return v
}

// Start lists the Nodes, revokes the certificates of the deleted ones, and
// follows the Nodes until Stop or ctx ends.
func (v *NodeRevoker) Start(ctx context.Context) error { return v.f.Start(ctx) }

// Stop ends the revoker and waits for it.
func (v *NodeRevoker) Stop() { v.f.Stop() }

// revokeHandler is what the Follower of the Nodes hands over to.
type revokeHandler struct{ v *NodeRevoker }

// OnReplace reconciles the certificate records with the listed Nodes.
func (h revokeHandler) OnReplace(ctx context.Context, l *listwatch.List) error {
	live := map[string]bool{}
	if err := l.Each(func(kv *datastore.KeyValue) { live[strings.TrimPrefix(kv.Key, nodes.Prefix(""))] = true }); err != nil {
		return err
	}
	if err := h.v.certs.reconcile(ctx, live, l.Revision()); err != nil {
		return err
	}
	return h.v.forgetOrphans(ctx, live)
}

// OnEvent revokes a deleted Node's certificate and forgets its password,
// and notes on a live
// Node's record that its Node exists.
func (h revokeHandler) OnEvent(ctx context.Context, ev *datastore.Event) {
	node := strings.TrimPrefix(ev.KV.Key, nodes.Prefix(""))
	switch {
	case ev.Type == datastore.EventDelete:
		h.v.retry(ctx, "revoke node certificate", node, func() error { return h.v.certs.Revoke(ctx, node) })
		if h.v.passwords != nil {
			h.v.retry(ctx, "forget node password", node, func() error { return h.v.passwords.Forget(ctx, node) })
		}
	case h.v.certs.needsSeen(node):
		h.v.retry(ctx, "note the node's Node on its certificate record", node, func() error { return h.v.certs.markSeen(ctx, node) })
	}
}

// retry runs fn until it succeeds or ctx ends: a revocation must not be
// lost to a passing datastore error. The Follower waits meanwhile.
func (v *NodeRevoker) retry(ctx context.Context, what, node string, fn func() error) {
	back := v.cfg.Backoff
	for {
		err := fn()
		if err == nil || ctx.Err() != nil {
			return
		}
		v.log.Error(what+" failed; retrying", "node", node, "err", err)
		if !back.Wait(ctx) {
			return
		}
	}
}
