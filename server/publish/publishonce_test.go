package publish

import (
	"context"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// deadlineBus records whether each Publish came with a deadline.
type deadlineBus struct {
	mqtt.Bus
	deadlines []bool
}

func (b *deadlineBus) Publish(ctx context.Context, _ string, _ byte, _ bool, _ []byte) error {
	_, ok := ctx.Deadline()
	b.deadlines = append(b.deadlines, ok)
	return ctx.Err()
}

// queuingDeadlineBus is a deadlineBus that says its Publish only queues.
type queuingDeadlineBus struct{ *deadlineBus }

func (queuingDeadlineBus) PublishNeverWaits() {}

// TestPublishTimeoutOnlyWhereAPublishCanWait: a Bus that may wait on a
// broker (an external one) gets PublishTimeout on every attempt; one that
// only queues (the embedded broker) gets the publisher's own context, and
// both stop with the publisher.
func TestPublishTimeoutOnlyWhereAPublishCanWait(t *testing.T) {
	waits, queues := &deadlineBus{}, &deadlineBus{}
	for _, c := range []struct {
		bus  mqtt.Bus
		rec  *deadlineBus
		want bool
	}{{waits, waits, true}, {queuingDeadlineBus{queues}, queues, false}} {
		p := New(Config{Bus: c.bus, PublishTimeout: time.Minute})
		p.ctx, p.cancel = context.WithCancel(context.Background())
		if err := p.publishOnce("t", nil); err != nil {
			t.Fatalf("publish: %v", err)
		}
		p.cancel()
		if err := p.publishOnce("t", nil); err == nil {
			t.Errorf("publish after the publisher stopped (deadline %v): no error", c.want)
		}
		if got := c.rec.deadlines[0]; got != c.want {
			t.Errorf("a Publish with a deadline: got %v, want %v", got, c.want)
		}
	}
}
