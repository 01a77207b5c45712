package nodestatus

import (
	"context"
	"testing"
	"time"
)

// TestWriteShareLeavesTheDatastoreToBusyWriters: the status writer gets
// the full rate while the datastore is otherwise quiet, what the others
// leave while they write, and never less than minShare a second.
func TestWriteShareLeavesTheDatastoreToBusyWriters(t *testing.T) {
	var rev int64
	var own uint64
	s := &writeShare{revision: func(context.Context) (int64, error) { return rev, nil },
		own: func() uint64 { return own }, maxPer: 50, minPer: 5}
	ctx, now := context.Background(), time.Unix(1_000_000, 0)
	step := func(others, mine int) int {
		rev += int64(others + mine)
		own += uint64(mine)
		now = now.Add(limiterTick)
		return s.perTick(ctx, now)
	}
	if got := s.perTick(ctx, now); got != 50 {
		t.Fatalf("first ask: %d per tick, want the full 50", got)
	}
	if got := s.perTick(ctx, now.Add(limiterTick/2)); got != 0 {
		t.Errorf("asked again within a tick: %d, want 0 (keep the rate)", got)
	}
	for _, c := range []struct{ others, mine, want int }{
		{0, 50, 50},  // only its own writes: the full rate
		{20, 30, 30}, // others wrote 20: 30 left
		{120, 5, 5},  // a scheduler binding: the floor, 50 a second
		{45, 5, 5},   // 45 of 50 taken: 5 left, the floor anyway
		{10, 5, 40},  // they slow down: it speeds up
	} {
		if got := step(c.others, c.mine); got != c.want {
			t.Errorf("others %d, own %d in a tick: %d per tick, want %d", c.others, c.mine, got, c.want)
		}
	}
	rev += 1000 // a quiet spell for the writer, the datastore busy
	now = now.Add(2 * time.Second)
	if got := s.perTick(ctx, now); got != 50 {
		t.Errorf("after 2 s unasked: %d, want the full rate until measured again", got)
	}
}

func TestLimiterSetPerTickKeepsFiftyWritesOfBurst(t *testing.T) {
	l := newLimiter(500)
	l.setPerTick(5) // 50 a second
	if l.interval != 20*time.Millisecond || l.burst != time.Second {
		t.Errorf("at 5 per tick: interval %v, burst %v; want 20ms, 1s", l.interval, l.burst)
	}
	l.setPerTick(50)
	if l.interval != 2*time.Millisecond || l.burst != 100*time.Millisecond {
		t.Errorf("at 50 per tick: interval %v, burst %v; want 2ms, 100ms", l.interval, l.burst)
	}
}
