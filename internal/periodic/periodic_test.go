package periodic

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestEveryRunsUntilCancelled: fn runs again and again on the ticker, and
// not after Every has returned.
func TestEveryRunsUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		Every(ctx, time.Millisecond, func() {
			if calls.Add(1) == 3 {
				cancel()
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("Every still running after 30 s; fn ran %d times, want 3 then a return", calls.Load())
	}
	after := calls.Load()
	time.Sleep(20 * time.Millisecond)
	if got := calls.Load(); got != after || got < 3 {
		t.Fatalf("got %d calls at return and %d later, want the same, at least 3", after, got)
	}
}

// TestEveryWaitsFirst: fn does not run at once, and a cancelled ctx ends
// Every before the first tick.
func TestEveryWaitsFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	var calls atomic.Int64
	Every(ctx, time.Hour, func() { calls.Add(1) })
	if got := calls.Load(); got != 0 {
		t.Fatalf("got %d calls before the first tick, want 0", got)
	}
}
