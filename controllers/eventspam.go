package controllers

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Upstream's event recorder (client-go's EventSourceObjectSpamFilter) lets
// each source write at most a burst of 25 Events about one object, then
// one more per 5 minutes, and drops the rest. A 1,000-replica ReplicaSet
// would otherwise write 1,000 SuccessfulCreate Events about itself, a
// third of all the writes its rollout makes; upstream keeps 25 of them, so
// `kubectl describe` shows the same here.
const (
	spamBurst  = 25
	spamRefill = 5 * time.Minute
)

// spamFilter is a token bucket per involved object (the recorder is one
// source: its component).
type spamFilter struct {
	mu      sync.Mutex
	buckets map[string]*spamBucket
}

type spamBucket struct {
	tokens float64
	last   time.Time
}

func newSpamFilter() *spamFilter { return &spamFilter{buckets: map[string]*spamBucket{}} }

// allow reports whether an Event about ev's object may be written at now,
// taking a token if so.
func (f *spamFilter) allow(ev *corev1.Event, now time.Time) bool {
	o := ev.InvolvedObject
	key := o.Kind + "\x00" + o.Namespace + "\x00" + o.Name + "\x00" + string(o.UID)
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.buckets[key]
	if b == nil {
		if len(f.buckets) >= recentMax {
			f.forgetFull(now)
		}
		b = &spamBucket{tokens: spamBurst, last: now}
		f.buckets[key] = b
	}
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(spamBurst, b.tokens+float64(d)/float64(spamRefill))
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// forgetFull drops the buckets that have refilled completely (they are
// the same as no bucket); if none has, it starts afresh.
func (f *spamFilter) forgetFull(now time.Time) {
	for k, b := range f.buckets {
		if b.tokens+float64(now.Sub(b.last))/float64(spamRefill) >= spamBurst {
			delete(f.buckets, k)
		}
	}
	if len(f.buckets) >= recentMax {
		clear(f.buckets)
	}
}
