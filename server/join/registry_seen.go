package join

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// needsSeen reports whether node has a current certificate whose record
// does not yet note that its Node exists.
func (r *NodeCertRegistry) needsSeen(node string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[node]
	return ok && e.serial != nil && !e.seen
}

// markSeen notes on node's record that its Node exists. No record is not
// an error.
func (r *NodeCertRegistry) markSeen(ctx context.Context, node string) error {
	for range 5 {
		kv, err := r.store.Get(ctx, NodeCertPrefix+node)
		if errors.Is(err, datastore.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err = r.markRecord(ctx, node, kv); !errors.Is(err, datastore.ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("note the Node of %s on its certificate record: the record keeps changing", node)
}

// markRecord rewrites the record kv with NodeSeen set, if kv is still the
// record's latest version (datastore.ErrConflict otherwise).
func (r *NodeCertRegistry) markRecord(ctx context.Context, node string, kv *datastore.KeyValue) error {
	var rec nodeCertRecord
	if err := json.Unmarshal(kv.Value, &rec); err != nil {
		return nil // unreadable: it validates nothing anyway
	}
	if rec.NodeSeen {
		return nil
	}
	rec.NodeSeen = true
	value, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	rev, err := r.store.Update(ctx, kv.Key, value, kv.ModRevision)
	if errors.Is(err, datastore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if e, err := parseRecord(&datastore.KeyValue{Key: kv.Key, Value: value, ModRevision: rev}); err == nil {
		r.apply(node, e)
	}
	return nil
}

// reconcile brings the records as of rev in line with live, the Nodes
// that existed at rev: a record whose Node was seen and is not live is
// revoked; a record of a live Node is noted as seen. Records that changed
// since rev are left to the watch (a newer join wins).
func (r *NodeCertRegistry) reconcile(ctx context.Context, live map[string]bool, rev int64) error {
	var revoke, mark []*datastore.KeyValue
	_, err := listwatch.ListAt(ctx, r.store, NodeCertPrefix, rev, func(kv *datastore.KeyValue) {
		e, err := parseRecord(kv)
		switch node := strings.TrimPrefix(kv.Key, NodeCertPrefix); {
		case err != nil:
		case e.seen && !live[node]:
			revoke = append(revoke, kv)
		case !e.seen && live[node]:
			mark = append(mark, kv)
		}
	})
	if err != nil {
		return fmt.Errorf("reconcile node certificates with Nodes: %w", err)
	}
	for _, kv := range revoke {
		if err := r.revokeRecord(ctx, kv); err != nil {
			return err
		}
	}
	for _, kv := range mark {
		err := r.markRecord(ctx, strings.TrimPrefix(kv.Key, NodeCertPrefix), kv)
		if err != nil && !errors.Is(err, datastore.ErrConflict) {
			return err
		}
	}
	return nil
}

// revokeRecord deletes the record kv if it is still the latest version.
func (r *NodeCertRegistry) revokeRecord(ctx context.Context, kv *datastore.KeyValue) error {
	node := strings.TrimPrefix(kv.Key, NodeCertPrefix)
	rev, _, err := r.store.Delete(ctx, kv.Key, kv.ModRevision)
	if errors.Is(err, datastore.ErrConflict) || errors.Is(err, datastore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("revoke certificate of node %s: %w", node, err)
	}
	r.apply(node, certEntry{rev: rev})
	r.cfg.Logger.Warn("revoked the certificate of a node whose Node was deleted while no server watched", "node", node, "rev", rev)
	return nil
}
