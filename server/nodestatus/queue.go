package nodestatus

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Queue keys: "node/<name>" and "pod/<namespace>/<name>". The queue is the
// controllers' work queue: a key added while queued or being synced is
// synced once more afterwards, never by two workers at once, so heartbeats
// and reports that pile up while a write waits coalesce into one sync.
func nodeKey(name string) string  { return "node/" + name }
func podQueueKey(k podKey) string { return "pod/" + k.namespace + "/" + k.name }

// Retry delays after a failed sync: doubling from retryMin to retryMax.
const (
	retryMin = time.Second
	retryMax = time.Minute
)

// syncLogged is the workers' sync: a failed one is logged here and
// retried by the queue with back-off (retryMin doubling to retryMax).
func (m *Monitor) syncLogged(ctx context.Context, key string) error {
	err := m.sync(ctx, key)
	if err != nil && ctx.Err() == nil {
		m.log.Warn("status write failed; retrying", "key", key, "err", err, "retries", m.queue.NumRequeues(key))
	}
	return err
}

func (m *Monitor) sync(ctx context.Context, key string) error {
	kind, rest, _ := strings.Cut(key, "/")
	if kind == "node" {
		return m.syncNode(ctx, rest)
	}
	ns, name, _ := strings.Cut(rest, "/")
	return m.syncPod(ctx, podKey{ns, name})
}

// limiter spaces writes at a rate, allowing a burst after a quiet spell of
// one second's worth or burstWrites, whichever is fewer (virtual
// scheduling: each write gets the next slot, and slots left unused in the
// past are forgotten beyond the burst). Slots closer together than a tick
// are released together at the tick's end, so the writes of one tick reach
// the datastore at once and share its commit (one fsync): at 50 writes a
// second, one commit per write cost the server more CPU than the writes
// (BenchmarkDeployment1000's profile), and an SD card an fsync each. So
// what bounds an SD card's fsyncs is the tick, not the rate: past the
// burst, at most one commit per tick whatever the rate.
type limiter struct {
	mu       sync.Mutex
	interval time.Duration
	burst    time.Duration
	tick     time.Duration
	next     time.Time
	share    *writeShare // when set, adapts the rate (ticking limiters only)
}

// limiterTick is how long writes are gathered when the rate allows more
// than one per tick.
const limiterTick = 100 * time.Millisecond

// burstWrites caps the burst: at high rates a second's worth of writes at
// once would each go as they come, not a tick's worth per commit.
const burstWrites = 50

func newLimiter(perSecond float64) *limiter {
	interval := time.Duration(float64(time.Second) / perSecond)
	l := &limiter{interval: interval, burst: min(time.Second, burstWrites*interval)}
	if l.interval < limiterTick {
		l.tick = limiterTick
	}
	return l
}

// perTick is how many writes one tick releases at most (1 when there is
// no tick): the writers that must run at once for them to share a commit.
func (l *limiter) perTick() int {
	if l.tick == 0 {
		return 1
	}
	return int((l.tick + l.interval - 1) / l.interval)
}

// setPerTick sets the rate of a ticking limiter to n writes per tick,
// the burst to match (burstWrites, or a second's worth if fewer).
func (l *limiter) setPerTick(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tick == 0 || n <= 0 {
		return
	}
	l.interval = l.tick / time.Duration(n)
	l.burst = min(time.Second, burstWrites*l.interval)
}

// reserve takes the next slot and returns when its write may go.
func (l *limiter) reserve(now time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if floor := now.Add(-l.burst); l.next.Before(floor) {
		l.next = floor
	}
	slot := l.next
	l.next = l.next.Add(l.interval)
	if l.tick == 0 || !slot.After(now) {
		return slot
	}
	if at := slot.Truncate(l.tick); at.Before(slot) {
		slot = at.Add(l.tick)
	}
	return slot
}

func (l *limiter) wait(ctx context.Context) error {
	now := time.Now()
	if l.share != nil {
		l.setPerTick(l.share.perTick(ctx, now))
	}
	d := time.Until(l.reserve(now))
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// warnGate lets one warning through every warnEvery and counts the rest.
type warnGate struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

const warnEvery = 10 * time.Second

func (g *warnGate) allow(now time.Time) (suppressed int, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.last.IsZero() && now.Sub(g.last) < warnEvery {
		g.suppressed++
		return 0, false
	}
	n := g.suppressed
	g.last, g.suppressed = now, 0
	return n, true
}
