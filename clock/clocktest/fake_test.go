package clocktest

import (
	"context"
	"testing"
	"time"
)

func fired(ch <-chan time.Time) (time.Time, bool) {
	select {
	case t := <-ch:
		return t, true
	default:
		return time.Time{}, false
	}
}

func TestFakeAfterFiresWhenDue(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	c := NewFake(start)
	soon, later := c.After(time.Second), c.After(time.Minute)
	if got, ok := fired(c.After(0)); !ok || !got.Equal(start) {
		t.Fatalf("After(0): got %v fired=%v, want %v at once", got, ok, start)
	}
	if n := c.Waiters(); n != 2 {
		t.Fatalf("waiters: got %d, want 2", n)
	}
	c.Advance(999 * time.Millisecond)
	if _, ok := fired(soon); ok {
		t.Fatal("After(1s) fired 1 ms early")
	}
	c.Advance(time.Millisecond)
	if got, ok := fired(soon); !ok || !got.Equal(start.Add(time.Second)) {
		t.Fatalf("After(1s): got %v fired=%v, want %v", got, ok, start.Add(time.Second))
	}
	if _, ok := fired(later); ok || c.Waiters() != 1 {
		t.Fatalf("After(1m) fired after 1 s, or waiters %d != 1", c.Waiters())
	}
	if err := c.Sleep(context.Background(), time.Minute); err != nil {
		t.Fatalf("Sleep: %v", err)
	}
	if _, ok := fired(later); !ok || c.Waiters() != 0 {
		t.Fatal("Sleep(1m) did not move the clock past After(1m)")
	}
	if got, want := c.Now(), start.Add(time.Minute+time.Second); !got.Equal(want) {
		t.Fatalf("Now: got %v, want %v", got, want)
	}
}
