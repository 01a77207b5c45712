package nodestatus

import (
	"context"
	"time"
)

// Grace period defaults. A node is Ready=Unknown when no heartbeat came
// for its grace period, so each node can cause at most two Node writes per
// grace period (Unknown, then Ready again when it returns). With
//
//	grace(N) = 40s                        for N <= 100 nodes
//	grace(N) = 40s + (N-100) × 20ms       above
//
// the writes of flapping nodes stay below 2N / grace(N) < 100 per second
// whatever the cluster's size (5/s at 100 nodes, 51/s at 2,000), and a
// large cluster, whose heartbeats queue longer in the broker and the
// server after a restart, is not declared lost by a backlog.
const (
	baseGracePeriod = 40 * time.Second
	baseGraceNodes  = 100
	gracePerNode    = 20 * time.Millisecond
	// minIntervals: a node is never lost before this many of its own
	// heartbeat intervals.
	minIntervals = 3
)

// AdaptiveGracePeriod is the default grace period for a cluster of nodes.
func AdaptiveGracePeriod(nodes int) time.Duration {
	if nodes <= baseGraceNodes {
		return baseGracePeriod
	}
	return baseGracePeriod + time.Duration(nodes-baseGraceNodes)*gracePerNode
}

// GracePeriod is the grace period in force now: Config.GracePeriod, or the
// adaptive one for the nodes tracked.
func (m *Monitor) GracePeriod() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gracePeriodLocked()
}

func (m *Monitor) gracePeriodLocked() time.Duration {
	if m.cfg.GracePeriod > 0 {
		return m.cfg.GracePeriod
	}
	return AdaptiveGracePeriod(len(m.nodes))
}

func (m *Monitor) checkInterval() time.Duration {
	if m.cfg.CheckInterval > 0 {
		return m.cfg.CheckInterval
	}
	return min(max(m.GracePeriod()/8, time.Second), 5*time.Second)
}

// watchLeases checks the leases until ctx ends.
func (m *Monitor) watchLeases(ctx context.Context) {
	t := time.NewTimer(m.checkInterval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m.checkLeases(m.cfg.Now())
		t.Reset(m.checkInterval())
	}
}

// checkLeases marks every node whose lease lapsed (once: the mark stays
// until a heartbeat comes) and queues its Node for writing; it also drops
// memory nobody needs any more.
func (m *Monitor) checkLeases(now time.Time) {
	var lapsed []string
	m.mu.Lock()
	grace := m.gracePeriodLocked()
	for name, st := range m.nodes {
		if !st.lost && st.lapsed(now, grace, m.cfg.OfflineConfirm) {
			st.lost = true
			lapsed = append(lapsed, name)
		}
	}
	for name, until := range m.tombs {
		if now.After(until) {
			delete(m.tombs, name)
		}
	}
	m.sweepPodsLocked(now)
	m.mu.Unlock()
	for _, name := range lapsed {
		m.log.Info("node stopped sending heartbeats; marking it Ready=Unknown", "node", name, "grace", grace)
		m.queue.Add(nodeKey(name))
	}
}

// lapsed reports whether st's lease ran out: silent for longer than the
// grace period (at least minIntervals of its heartbeat interval), or
// announced offline by its Last Will and silent since for OfflineConfirm.
func (st *nodeState) lapsed(now time.Time, grace, confirm time.Duration) bool {
	if st.latest != nil {
		grace = max(grace, minIntervals*time.Duration(st.latest.IntervalSeconds)*time.Second)
	}
	if now.Sub(st.lastSeen) > grace {
		return true
	}
	return !st.offlineAt.IsZero() && now.Sub(st.offlineAt) > min(confirm, grace)
}
