// Package periodic runs a function on a ticker until its context ends:
// the loop that resyncs, polls and flushes all over bramble. It runs fn
// first after one interval, never at once; the loops that run at once,
// wait on other channels too, or jitter or reset their timer keep loops
// of their own.
package periodic

import (
	"context"
	"time"
)

// Every calls fn every d until ctx ends, the first time d after the call.
// A call of fn that outlasts d is followed by the next at once (as
// time.Ticker: ticks missed meanwhile are dropped, not queued). Every
// returns when ctx ends, once a call under way has returned.
func Every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}
