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

// limiter spaces writes evenly at a rate, allowing a burst of one second's
// worth after a quiet spell (virtual scheduling: each write gets the next
// slot, and slots left unused in the past are forgotten beyond the burst).
type limiter struct {
	mu       sync.Mutex
	interval time.Duration
	burst    time.Duration
	next     time.Time
}

func newLimiter(perSecond float64) *limiter {
	return &limiter{interval: time.Duration(float64(time.Second) / perSecond), burst: time.Second}
}

func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := time.Now()
	if floor := now.Add(-l.burst); l.next.Before(floor) {
		l.next = floor
	}
	slot := l.next
	l.next = l.next.Add(l.interval)
	l.mu.Unlock()
	d := slot.Sub(now)
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
