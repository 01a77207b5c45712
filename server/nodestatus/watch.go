package nodestatus

import (
	"context"
	"errors"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
)

// watchNodes follows Node creations and deletions made by anyone from
// revision rev on: a Node created by someone else (kubectl create) gets a
// lease like any other; a deleted Node is forgotten, and its heartbeats
// are ignored until the node connects again (its certificate is revoked
// with the Node, so it must join again first) or tombstoneTTL passes.
func (m *Monitor) watchNodes(ctx context.Context, rev int64) {
	for ctx.Err() == nil {
		ch, err := m.cfg.Store.Watch(ctx, nodesResource.Prefix(""), rev)
		if errors.Is(err, datastore.ErrCompacted) {
			if cur, cerr := m.cfg.Store.CurrentRevision(ctx); cerr == nil {
				m.log.Warn("node watch fell behind compaction; resuming at the current revision", "rev", rev, "now", cur)
				rev = cur
				continue
			}
		}
		if err != nil {
			if ctx.Err() == nil {
				m.log.Warn("node watch failed; retrying", "rev", rev, "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for batch := range ch {
			for _, ev := range batch {
				rev = ev.Revision
				m.nodeEvent(ev)
			}
		}
	}
}

func (m *Monitor) nodeEvent(ev datastore.Event) {
	name := strings.TrimPrefix(ev.KV.Key, nodesResource.Prefix(""))
	switch ev.Type {
	case datastore.EventDelete:
		m.mu.Lock()
		delete(m.nodes, name)
		m.tombs[name] = m.cfg.Now().Add(tombstoneTTL)
		m.mu.Unlock()
	case datastore.EventCreate:
		obj, err := decodeStored(nodesResource, ev.KV)
		if err != nil {
			m.log.Warn("unreadable Node in the datastore", "node", name, "err", err)
			return
		}
		m.track(obj.(*corev1.Node))
	}
}

// track gives a Node the Monitor does not know yet a fresh lease.
func (m *Monitor) track(n *corev1.Node) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.nodes[n.Name]; ok {
		return
	}
	m.nodes[n.Name] = &nodeState{lastSeen: m.cfg.Now(), exists: true, written: statusView(&n.Status),
		lost: readyStatus(&n.Status) == corev1.ConditionUnknown}
}
