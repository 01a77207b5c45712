package client

import (
	"context"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// maxBatch bounds how many Events one ApplyBatch gets.
const maxBatch = 64

// gather returns ev and, for a BatchApplier, the Events queued right
// behind it that follow on from it: each one's Prev at most, and its Rev
// beyond, the Rev of the one before.
func (s *stream) gather(ev *mqtt.Event) []*mqtt.Event {
	batch := []*mqtt.Event{ev}
	if _, ok := s.applier.(BatchApplier); !ok {
		return batch
	}
	for len(batch) < maxBatch {
		last := batch[len(batch)-1].Rev
		it, ok := s.q.popIf(func(it item) bool {
			return it.ev != nil && it.ev.Type == mqtt.EventChanges && it.ev.Prev <= last && it.ev.Rev > last
		})
		if !ok {
			break
		}
		batch = append(batch, it.ev)
	}
	return batch
}

// apply applies a batch of Events that follow on from last; a failure
// makes the stream relist everything.
func (s *stream) apply(ctx context.Context, batch []*mqtt.Event) {
	evs := make([]mqtt.Event, len(batch))
	for i, ev := range batch {
		evs[i] = s.withoutStale(ev)
	}
	if err := s.applyEvents(ctx, evs); err != nil {
		s.log.Warn("apply failed; relisting by REST", "rev", evs[len(evs)-1].Rev, "events", len(evs), "err", err)
		s.resync(ctx, 0)
		return
	}
	s.applied(evs[len(evs)-1].Rev)
}

func (s *stream) applyEvents(ctx context.Context, evs []mqtt.Event) error {
	if b, ok := s.applier.(BatchApplier); ok {
		return b.ApplyBatch(ctx, evs)
	}
	for _, ev := range evs { // one at a time without a BatchApplier (gather batches only for one)
		if err := s.applier.Apply(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// applied moves last to rev and acknowledges it.
func (s *stream) applied(rev int64) {
	s.setLast(rev)
	s.gapUntil = time.Time{}
	if s.floor != nil && s.last >= s.floorMax {
		s.floor = nil
	}
	s.link.sendAck(mqtt.AckApplied, rev)
}

// withoutStale leaves out changes older than what a resync already gave.
func (s *stream) withoutStale(ev *mqtt.Event) mqtt.Event {
	if s.floor == nil {
		return *ev
	}
	out := *ev
	out.Changes = nil
	for _, c := range ev.Changes {
		if f, ok := s.floor[c.ObjectRef]; !ok || ev.Rev > f {
			out.Changes = append(out.Changes, c)
		}
	}
	return out
}
