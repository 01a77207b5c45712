package join

import (
	"math"
	"sync"
	"time"
)

// failureLimiter bounds failed join attempts per source address with a
// token bucket: each address may fail burst times in a row, then once per
// refill interval. Successful joins cost nothing, so many nodes behind one
// NAT (or one process of hollow agents) join freely.
type failureLimiter struct {
	burst  float64
	refill time.Duration
	now    func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was computed
}

// maxTrackedAddrs bounds the memory the limiter keeps; beyond it, addresses
// whose buckets are full again are forgotten.
const maxTrackedAddrs = 4096

func newFailureLimiter(burst int, refill time.Duration, now func() time.Time) *failureLimiter {
	return &failureLimiter{burst: float64(burst), refill: refill, now: now, buckets: map[string]*bucket{}}
}

// wait returns 0 when addr may try, or how long it must wait first.
func (l *failureLimiter) wait(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[addr]
	if !ok {
		return 0
	}
	l.fill(b)
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - b.tokens) * float64(l.refill)))
}

// fail charges one failed attempt to addr.
func (l *failureLimiter) fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[addr]
	if !ok {
		if len(l.buckets) >= maxTrackedAddrs {
			l.prune()
		}
		b = &bucket{tokens: l.burst, at: l.now()}
		l.buckets[addr] = b
	}
	l.fill(b)
	b.tokens = max(b.tokens-1, 0)
}

func (l *failureLimiter) fill(b *bucket) {
	now := l.now()
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(l.burst, b.tokens+float64(elapsed)/float64(l.refill))
	}
	b.at = now
}

// prune forgets addresses whose buckets are full again; if that frees too
// little, arbitrary addresses go until half the room is free, so a flood of
// source addresses cannot grow the map without bound. (Per-address limits
// are a modest brake: someone with many addresses gets more tries.)
func (l *failureLimiter) prune() {
	for addr, b := range l.buckets {
		l.fill(b)
		if b.tokens >= l.burst {
			delete(l.buckets, addr)
		}
	}
	if len(l.buckets) < maxTrackedAddrs {
		return
	}
	for addr := range l.buckets {
		if len(l.buckets) < maxTrackedAddrs/2 {
			return
		}
		delete(l.buckets, addr)
	}
}
