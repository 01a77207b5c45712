package nodestatus

import (
	"maps"
	"testing"
	"time"
)

// TestLimiterReleasesATicksWritesTogether: past the burst, writes keep the
// rate but those whose slots fall in one tick go together at its end.
func TestLimiterReleasesATicksWritesTogether(t *testing.T) {
	l := newLimiter(50) // a slot every 20 ms, 5 per 100 ms tick
	if got := l.perTick(); got != 5 {
		t.Fatalf("perTick = %d, want 5", got)
	}
	now := time.Unix(1_000_000, 0) // on a tick boundary
	for i := range 50 {            // the burst: one second's worth at once
		if at := l.reserve(now); at.After(now) {
			t.Fatalf("write %d of the burst waits until %v, want at once", i+1, at.Sub(now))
		}
	}
	counts := map[time.Duration]int{}
	for range 20 {
		at := l.reserve(now)
		if at.Sub(now)%limiterTick != 0 {
			t.Fatalf("a write after the burst goes %v after now, want a tick boundary", at.Sub(now))
		}
		counts[at.Sub(now)]++
	}
	// The slot at now itself, then slots 20-100 ms, 120-200 ms, ... each
	// released at their tick's end.
	want := map[time.Duration]int{0: 1, 100 * time.Millisecond: 5, 200 * time.Millisecond: 5, 300 * time.Millisecond: 5, 400 * time.Millisecond: 4}
	if !maps.Equal(counts, want) {
		t.Errorf("writes released per time after now: got %v, want %v", counts, want)
	}
}

func TestLimiterWithoutTickSpacesEvenly(t *testing.T) {
	l := newLimiter(5) // a slot every 200 ms: longer than a tick
	if got := l.perTick(); got != 1 {
		t.Fatalf("perTick = %d, want 1", got)
	}
	now := time.Unix(1_000_000, 0)
	for range 5 {
		l.reserve(now)
	}
	first, second := l.reserve(now), l.reserve(now)
	if d := second.Sub(first); d != 200*time.Millisecond {
		t.Errorf("successive slots %v apart, want 200ms", d)
	}
}

// TestLimiterAtTheDefaultRateKeepsTenCommitsASecond: at the default rate
// the burst is burstWrites, and past it each tick releases a tick's worth
// together, so the commits a second stay at one per tick.
func TestLimiterAtTheDefaultRateKeepsTenCommitsASecond(t *testing.T) {
	l := newLimiter(defaultWritesPerSecond) // a slot every 2 ms
	if got, want := l.perTick(), defaultWritesPerSecond/10; got != want {
		t.Fatalf("perTick = %d, want %d", got, want)
	}
	now := time.Unix(1_000_000, 0)
	for i := range burstWrites {
		if at := l.reserve(now); at.After(now) {
			t.Fatalf("write %d of the burst waits until %v, want at once", i+1, at.Sub(now))
		}
	}
	counts := map[time.Duration]int{}
	for range 2 * defaultWritesPerSecond {
		at := l.reserve(now)
		if at.Sub(now)%limiterTick != 0 {
			t.Fatalf("a write after the burst goes %v after now, want a tick boundary", at.Sub(now))
		}
		counts[at.Sub(now)]++
	}
	if len(counts) > 21 { // the slot at now, then 2 s of ticks
		t.Errorf("writes released at %d moments in 2 s, want at most 21: %v", len(counts), counts)
	}
	if n := counts[time.Second]; n != defaultWritesPerSecond/10 {
		t.Errorf("the tick at 1 s releases %d writes, want %d", n, defaultWritesPerSecond/10)
	}
}
