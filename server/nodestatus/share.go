package nodestatus

import (
	"context"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// writeShare adapts the status writer's rate to the datastore's other
// writers: the writer takes what they leave of WritesPerSecond, measured
// over the last tick (the datastore's revisions minus the writer's own
// writes), and never less than minShare a second. So 1,000 pods turning
// Ready on an otherwise quiet server are written in about 2 s, while the
// scheduler binding thousands of pods (each binding and its Event a
// write) keeps the datastore nearly to itself: at a fixed 500 a second
// the status writes halved BenchmarkScheduler's bindings per second.
type writeShare struct {
	revision func(context.Context) (int64, error) // the datastore's
	own      func() uint64                        // the writer's writes so far

	mu     sync.Mutex
	at     time.Time
	rev    int64
	ownAt  uint64
	maxPer int // writes per tick at the full rate
	minPer int // writes per tick at minShare
}

// minShare is the least the status writer gets a second (the cap it had
// before it adapted).
const minShare = 50

func newWriteShare(store datastore.Store, own func() uint64, perSecond float64) *writeShare {
	perTick := perSecond * limiterTick.Seconds()
	return &writeShare{revision: store.CurrentRevision, own: own, maxPer: max(1, int(perTick)),
		minPer: max(1, min(int(perTick), int(minShare*limiterTick.Seconds())))}
}

// perTick is the writes per tick the status writer may make now: the
// full rate less the other writes of the time since it was last asked,
// counted per tick; 0 when asked again within a tick (keep the rate).
func (s *writeShare) perTick(ctx context.Context, now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	elapsed := now.Sub(s.at)
	if elapsed < limiterTick {
		return 0
	}
	rev, err := s.revision(ctx)
	if err != nil {
		return 0
	}
	own := s.own()
	first := s.at.IsZero()
	others := (rev - s.rev) - int64(own-s.ownAt)
	s.at, s.rev, s.ownAt = now, rev, own
	if first || elapsed > time.Second {
		return s.maxPer // nothing to measure over, or a quiet spell
	}
	perTick := int(others * int64(limiterTick) / int64(elapsed))
	return max(s.minPer, s.maxPer-max(0, perTick))
}
