package nodestatus

import (
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// nodeState is what the Monitor holds of one node, in memory only.
type nodeState struct {
	latest    *mqtt.Heartbeat // nil until the first heartbeat since start
	lastSeen  time.Time       // the last heartbeat, or the server's start
	offlineAt time.Time       // the Last Will said "offline" (zero: it did not)
	// lost: the lease lapsed and the Node should say Ready=Unknown, until
	// the next heartbeat.
	lost bool
	// written is what the stored Node shows (nil: not read yet); exists
	// says the Node was seen in the datastore.
	written *view
	exists  bool
	// agentAnn are the stored Node's agent annotations
	// (mqtt.AgentAnnotations); a heartbeat with others needs a write.
	agentAnn map[string]string
}

// Latest is what the Monitor knows of a node right now.
type Latest struct {
	// Heartbeat is the last one received since the server started (nil if
	// none); treat it as read-only.
	Heartbeat *mqtt.Heartbeat
	Seen      time.Time // when it came (or when the server started)
	Lost      bool      // the lease lapsed: the Node is, or is being marked, Ready=Unknown
	Offline   bool      // the Last Will said "offline" since the last heartbeat
}

// Latest returns what the Monitor holds of node.
func (m *Monitor) Latest(node string) (Latest, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.nodes[node]
	if !ok {
		return Latest{}, false
	}
	return Latest{Heartbeat: st.latest, Seen: st.lastSeen, Lost: st.lost, Offline: !st.offlineAt.IsZero()}, true
}

// onStatus handles a heartbeat. It runs on the Bus's delivery path: it
// decodes, updates memory and at most queues the node for a write.
func (m *Monitor) onStatus(topic string, payload []byte) {
	if m.stopped.Load() {
		return
	}
	node, ok := mqtt.NodeOfTopic(topic)
	if !ok || !mqtt.IsNodeTopic(topic, node, "status") {
		return
	}
	hb, err := mqtt.DecodeHeartbeat(payload)
	if err == nil && hb.Node != node {
		err = fmt.Errorf("node: got %q, want %q (the topic's node)", hb.Node, node)
	}
	if err != nil {
		m.reject(node, "heartbeat", err)
		return
	}
	m.counters.heartbeats.Add(1)
	m.mu.Lock()
	dirty := m.observeLocked(node, hb, m.cfg.Now())
	m.mu.Unlock()
	if dirty {
		m.queue.Add(nodeKey(node))
	}
}

// observeLocked records hb and reports whether the Node needs a write: a
// node back from a lapsed lease, one not read from the datastore yet, or a
// change a user would see.
func (m *Monitor) observeLocked(node string, hb *mqtt.Heartbeat, now time.Time) bool {
	if until, ok := m.tombs[node]; ok && now.Before(until) {
		return false // its Node was just deleted; a late heartbeat must not bring it back
	}
	st := m.nodes[node]
	if st == nil {
		st = &nodeState{}
		m.nodes[node] = st
	}
	st.latest, st.lastSeen, st.offlineAt = hb, now, time.Time{}
	if st.lost {
		st.lost = false
		return true
	}
	return st.written == nil || st.written.differs(reportView(&hb.Status), m.cfg.ResourceChange) ||
		!maps.Equal(st.agentAnn, agentAnnotations(hb.Annotations))
}

// Presence payloads on a node's presence topic.
const (
	presenceOnline  = "online"
	presenceOffline = "offline"
)

// onPresence handles the retained presence: "offline" (the Last Will, or a
// clean shutdown) starts the short confirmation; "online" cancels it, and
// ends the tombstone of a deleted Node (the node connected again, which
// takes a new join). It never makes a node Ready: only heartbeats do.
func (m *Monitor) onPresence(topic string, payload []byte) {
	if m.stopped.Load() {
		return
	}
	node, ok := mqtt.NodeOfTopic(topic)
	if !ok || !mqtt.IsNodeTopic(topic, node, "presence") || len(payload) == 0 {
		return // an empty retained payload only clears the topic
	}
	p := string(payload)
	if p != presenceOnline && p != presenceOffline {
		m.reject(node, "presence", fmt.Errorf("payload: got %.32q, want %q or %q", p, presenceOnline, presenceOffline))
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p == presenceOnline {
		delete(m.tombs, node) // a new connection: the node joined again
	}
	st := m.nodes[node]
	switch {
	case st == nil:
	case p == presenceOnline:
		st.offlineAt = time.Time{}
	case st.offlineAt.IsZero():
		st.offlineAt = m.cfg.Now()
	}
}

// reject counts a message that does not decode and logs it, at most once
// every few seconds (a broken agent sends one every heartbeat).
func (m *Monitor) reject(node, what string, err error) {
	m.counters.rejected.Add(1)
	if n, ok := m.warn.allow(m.cfg.Now()); ok {
		m.log.Warn("dropping a message from an agent", "node", node, "message", what, "err", err, "dropped_since_last_warning", n)
	}
}

// readyStatus is the status of the Ready condition ("" without one).
func readyStatus(s *corev1.NodeStatus) corev1.ConditionStatus {
	for _, c := range s.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}
