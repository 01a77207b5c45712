package daemonset

import (
	"strings"
	"sync"
	"time"
)

// failureBackoff spaces out the replacement of failed daemon pods per
// DaemonSet and node: the first failure is replaced at once, each further
// one waits twice as long as the last wait (up to a maximum); after a
// quiet spell of twice the maximum it starts afresh.
type failureBackoff struct {
	mu      sync.Mutex
	entries map[string]*backoffEntry // "<ds key>/<node>"
}

type backoffEntry struct {
	delay time.Duration
	last  time.Time
}

func newFailureBackoff() *failureBackoff {
	return &failureBackoff{entries: map[string]*backoffEntry{}}
}

// next returns how long the replacement under k must still wait; when it
// need not wait, it records this replacement and returns 0.
func (b *failureBackoff) next(k string, now time.Time, base, maxDelay time.Duration) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entries[k]
	if e == nil || now.Sub(e.last) > 2*maxDelay {
		b.entries[k] = &backoffEntry{delay: base, last: now}
		return 0
	}
	if until := e.last.Add(e.delay); now.Before(until) {
		return until.Sub(now)
	}
	e.delay = min(2*e.delay, maxDelay)
	e.last = now
	return 0
}

// forget drops every entry of the DaemonSet dsKey.
func (b *failureBackoff) forget(dsKey string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.entries {
		if strings.HasPrefix(k, dsKey+"/") {
			delete(b.entries, k)
		}
	}
}
