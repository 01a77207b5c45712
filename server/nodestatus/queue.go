package nodestatus

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Queue keys: "node/<name>" and "pod/<namespace>/<name>".
func nodeKey(name string) string  { return "node/" + name }
func podQueueKey(k podKey) string { return "pod/" + k.namespace + "/" + k.name }

// workQueue holds the keys of objects to sync. A key is queued at most
// once however often it is added, and never handed to two workers at
// once: added while being synced, it is queued again when that sync is
// done. So heartbeats and reports that pile up while a write waits
// coalesce into one sync.
type workQueue struct {
	mu         sync.Mutex
	items      []string
	dirty      map[string]bool
	processing map[string]bool
	ready      chan struct{} // capacity 1: "items may be waiting"
	closed     bool
}

func newWorkQueue() *workQueue {
	return &workQueue{dirty: map[string]bool{}, processing: map[string]bool{}, ready: make(chan struct{}, 1)}
}

func (q *workQueue) add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.dirty[key] {
		return
	}
	q.dirty[key] = true
	if !q.processing[key] {
		q.items = append(q.items, key)
		q.signal()
	}
}

func (q *workQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// get waits for a key; false when ctx ends or the queue is closed.
func (q *workQueue) get(ctx context.Context) (string, bool) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return "", false
		}
		if len(q.items) > 0 {
			key := q.items[0]
			q.items = q.items[1:]
			delete(q.dirty, key)
			q.processing[key] = true
			if len(q.items) > 0 {
				q.signal() // wake another worker
			}
			q.mu.Unlock()
			return key, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return "", false
		case <-q.ready:
		}
	}
}

// done ends the sync of key, queueing it again if it was added meanwhile.
func (q *workQueue) done(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, key)
	if q.dirty[key] && !q.closed {
		q.items = append(q.items, key)
		q.signal()
	}
}

func (q *workQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.signal()
}

// Retry delays after a failed sync: doubling from retryMin to retryMax.
const (
	retryMin = time.Second
	retryMax = time.Minute
)

// work syncs queued keys until ctx ends. A failed sync is retried later
// with back-off; the key stays in memory meanwhile.
func (m *Monitor) work(ctx context.Context) {
	failures := map[string]int{}
	for {
		key, ok := m.queue.get(ctx)
		if !ok {
			return
		}
		err := m.sync(ctx, key)
		m.queue.done(key)
		if err == nil || ctx.Err() != nil {
			delete(failures, key)
			continue
		}
		failures[key]++
		delay := min(retryMin<<min(failures[key]-1, 6), retryMax)
		m.log.Warn("status write failed; retrying", "key", key, "err", err, "in", delay)
		time.AfterFunc(delay, func() { m.queue.add(key) })
	}
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
