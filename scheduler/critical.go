package scheduler

import (
	"context"
	"sync"
)

// Pods at or above systemCriticalPriority (the system-cluster-critical and
// system-node-critical classes) always get room on the node they are
// bound to. A DaemonSet's controller binds its pods itself, so they never
// pass through the scheduling loop: when the watch shows such a pod on a
// node whose other pods leave it no room, the room keeper evicts the
// fewest, least important lower-priority pods there, chosen as preemption
// chooses them (budgets respected where possible). It works on a snapshot
// of its own, beside the scheduling loop.
const systemCriticalPriority = 2_000_000_000

// roomKeeper collects the critical pods to check and wakes its goroutine.
type roomKeeper struct {
	mu      sync.Mutex
	pending map[string]*podInfo
	wake    chan struct{}
	snap    *snapshot
	algo    *algorithm
}

func newRoomKeeper(cfg Config) *roomKeeper {
	return &roomKeeper{pending: map[string]*podInfo{}, wake: make(chan struct{}, 1),
		snap: newSnapshot(cfg.TopologyLabels), algo: newAlgorithm(100, cfg.ImagePlatforms)}
}

// note queues a bound pod for a room check if it is critical.
func (s *Scheduler) noteCritical(p *podInfo) {
	if s.cfg.Preemptor == nil || p.priority < systemCriticalPriority || p.terminal || p.pod.DeletionTimestamp != nil {
		return
	}
	rk := s.room
	rk.mu.Lock()
	rk.pending[p.key] = p
	rk.mu.Unlock()
	select {
	case rk.wake <- struct{}{}:
	default:
	}
}

// keepRoom checks the noted pods until ctx ends.
func (s *Scheduler) keepRoom(ctx context.Context) {
	rk := s.room
	for {
		select {
		case <-ctx.Done():
			return
		case <-rk.wake:
		}
		rk.mu.Lock()
		pending := rk.pending
		rk.pending = map[string]*podInfo{}
		rk.mu.Unlock()
		s.cache.updateSnapshot(rk.snap)
		for _, p := range pending {
			s.makeRoom(ctx, p)
		}
	}
}

// makeRoom evicts what keeps p's node over its capacity, unless the pods
// already being deleted there will do.
func (s *Scheduler) makeRoom(ctx context.Context, p *podInfo) {
	rk := s.room
	n, ok := rk.snap.nodes[p.pod.Spec.NodeName]
	if !ok {
		return
	}
	rest := n.clone()
	if !rest.removePod(p) {
		return // not counted there (yet)
	}
	c := &rk.algo.c
	c.pod, c.snap = p, rk.snap
	c.arch.resolve(p, rk.snap, rk.algo.extra)
	c.prepareAffinity(rk.snap)
	c.prepareAntiAffinity(rk.snap)
	if runFilters(podFilters(), c, rest) == nil {
		return
	}
	if rk.algo.fitsWithout(c, rest, p, func(q *podInfo) bool { return q.pod.DeletionTimestamp != nil }) {
		return
	}
	pe, found := rk.algo.victimsOn(c, rest, p, s.cfg.Preemptor.Protected)
	if !found || len(pe.victims) == 0 {
		s.log.Warn("no lower-priority pods to evict for a critical pod", "pod", p.key, "node", rest.name)
		return
	}
	s.log.Info("evicting lower-priority pods for a critical pod", "pod", p.key, "node", rest.name, "victims", len(pe.victims))
	s.dispatch(ctx, func(ctx context.Context) { s.carryOut(ctx, p.pod, pe, false) })
}
