package nodestatus

import (
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// EachUsage calls fn with the usage of every node whose latest heartbeat
// carried one and whose lease holds, and when it came. The usage is the
// heartbeat's: fn treats it as read-only. The usage lives in memory only
// (the metrics API serves it); fn must not block.
func (m *Monitor) EachUsage(fn func(node string, at time.Time, u *mqtt.Usage)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, st := range m.nodes {
		if st.latest != nil && st.latest.Usage != nil && !st.lost && st.offlineAt.IsZero() {
			fn(name, st.lastSeen, st.latest.Usage)
		}
	}
}
