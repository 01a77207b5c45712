package join

import (
	"fmt"
	"testing"
	"time"
)

func TestFailureLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newFailureLimiter(2, 10*time.Second, func() time.Time { return now })
	if w := l.wait("a"); w != 0 {
		t.Fatalf("unknown address: got wait %s, want 0", w)
	}
	l.fail("a")
	l.fail("a")
	if w := l.wait("a"); w != 10*time.Second {
		t.Fatalf("after 2 failures: got wait %s, want 10s", w)
	}
	if w := l.wait("b"); w != 0 {
		t.Fatalf("another address: got wait %s, want 0", w)
	}
	now = now.Add(4 * time.Second)
	if w := l.wait("a"); w != 6*time.Second {
		t.Fatalf("4s later: got wait %s, want 6s", w)
	}
	now = now.Add(6 * time.Second)
	if w := l.wait("a"); w != 0 {
		t.Fatalf("10s later: got wait %s, want 0", w)
	}
	l.fail("a")
	if w := l.wait("a"); w != 10*time.Second {
		t.Fatalf("a failure with the bucket refilled to one: got wait %s, want 10s", w)
	}
}

func TestFailureLimiterBoundsItsMemory(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newFailureLimiter(3, time.Second, func() time.Time { return now })
	for i := range 3 * maxTrackedAddrs {
		l.fail(fmt.Sprintf("10.0.%d.%d", i/256, i%256))
	}
	if n := len(l.buckets); n > maxTrackedAddrs {
		t.Fatalf("tracked addresses: got %d, want at most %d", n, maxTrackedAddrs)
	}
}
