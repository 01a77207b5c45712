package events

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// lockedPub is a fakePub Run may call from its goroutine.
type lockedPub struct {
	mu  sync.Mutex
	pub fakePub
}

func (p *lockedPub) Publish(ctx context.Context, topic string, qos byte, payload []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pub.Publish(ctx, topic, qos, payload)
}

func (p *lockedPub) reports() []*mqtt.EventReport {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*mqtt.EventReport(nil), p.pub.reports...)
}

// advanceUntil moves the fake clock in small steps until cond holds (Run
// registers its waits from its own goroutine).
func advanceUntil(t *testing.T, r *Recorder, step time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	clk := r.cfg.Clock.(interface{ Advance(time.Duration) })
	var moved time.Duration
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %s; fake clock moved %s", what, moved)
		}
		time.Sleep(time.Millisecond)
		clk.Advance(step)
		moved += step
	}
	return moved
}

func TestRunFlushesAfterTheDelayAndNotLaterForThrottledObjects(t *testing.T) {
	r, _, _ := newTest(Config{Burst: 1, Refill: time.Hour})
	pub := &lockedPub{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx, pub) }()
	defer func() { cancel(); <-done }()

	web := PodRef(testPod("web"), "app")
	r.Event(web, Normal, "Pulling", "one")
	r.Event(web, Normal, "Pulled", "two") // web's bucket is empty after one
	moved := advanceUntil(t, r, 100*time.Millisecond, "the first batch", func() bool { return len(pub.reports()) == 1 })
	if moved < time.Second {
		t.Errorf("first batch after %s, want the 1s flush delay", moved)
	}
	// web's second series waits an hour; a new object's event must not.
	r.Event(PodRef(testPod("db"), "app"), Normal, "Pulling", "three")
	moved = advanceUntil(t, r, 100*time.Millisecond, "db's event", func() bool { return len(pub.reports()) == 2 })
	if moved > 2*time.Second {
		t.Errorf("db's event waited %s behind web's throttled series, want about 1s", moved)
	}
	if got := pub.reports()[1].Events; len(got) != 1 || got[0].Message != "three" {
		t.Errorf("second batch: got %+v, want db's event only", got)
	}
}
