package nodestatus

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// nodesHandler keeps the Monitor in step with the Node objects, whoever
// writes them, as a listwatch.Follower hands them over. The list at start
// gives every Node a fresh lease (a node that died while the server was
// down still turns Ready=Unknown); a Node created later by someone else
// (kubectl create) gets a lease like any other; a deleted Node is
// forgotten, and its heartbeats are ignored until the node connects again
// (its certificate is revoked with it, so it must join again first) or
// tombstoneTTL passes. A list made again after the watch fell behind
// compaction is a replacement: Nodes missing from it are forgotten too.
type nodesHandler struct{ m *Monitor }

func (h nodesHandler) OnReplace(ctx context.Context, l *listwatch.List) error {
	listed := map[string]bool{}
	var bad error
	err := l.Each(func(kv *datastore.KeyValue) {
		obj, err := decodeStored(nodesResource, kv)
		if err != nil {
			bad = cmp.Or(bad, err)
			return
		}
		n := obj.(*corev1.Node)
		listed[n.Name] = true
		h.m.track(n)
	})
	if err = cmp.Or(err, bad); err != nil {
		return fmt.Errorf("node status: list nodes: %w", err)
	}
	return h.m.forgetMissing(ctx, listed)
}

func (h nodesHandler) OnEvent(_ context.Context, ev *datastore.Event) { h.m.nodeEvent(*ev) }

// forgetMissing forgets the Nodes the Monitor saw stored that are not in
// listed, once a read confirms they are gone (the Monitor may have created
// one after the list).
func (m *Monitor) forgetMissing(ctx context.Context, listed map[string]bool) error {
	m.mu.Lock()
	var missing []string
	for name, st := range m.nodes {
		if st.exists && !listed[name] {
			missing = append(missing, name)
		}
	}
	m.mu.Unlock()
	for _, name := range missing {
		_, err := getNode(ctx, m.cfg.Store, name)
		switch {
		case errors.Is(err, datastore.ErrNotFound):
			m.forget(name)
		case err != nil:
			return fmt.Errorf("node status: read node %s: %w", name, err)
		}
	}
	return nil
}

// forget drops a deleted Node and ignores its heartbeats for a while.
func (m *Monitor) forget(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.nodes, name)
	m.tombs[name] = m.cfg.Now().Add(tombstoneTTL)
}

func (m *Monitor) nodeEvent(ev datastore.Event) {
	name := strings.TrimPrefix(ev.KV.Key, nodesResource.Prefix(""))
	switch ev.Type {
	case datastore.EventDelete:
		m.forget(name)
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
