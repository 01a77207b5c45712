package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// errApply marks a relist whose answer the Applier refused: the next
// attempt asks for the whole view.
var errApply = errors.New("apply the view")

// resync relists by REST with one call (from since when the node holds a
// trustworthy revision, else everything) and hands the answer to the
// Applier, retrying with jittered exponential back-off (and at least what
// a busy server asked for) until it succeeds or ctx ends.
func (s *stream) resync(ctx context.Context, since int64) {
	wait := resyncWait
	for ctx.Err() == nil {
		err := s.relist(ctx, since)
		if err == nil {
			return
		}
		if errors.Is(err, errApply) {
			since = 0
		}
		d := jittered(wait)
		var busy *busyError
		if errors.As(err, &busy) {
			d = max(d, busy.retryAfter+jittered(busy.retryAfter))
		}
		s.log.Warn("relist failed; retrying", "err", err, "in", d)
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
		wait = min(2*wait, resyncMaxWait)
	}
}

// relist makes one attempt: a whole view replaces what the Applier holds,
// the changes since since are applied like an Event.
func (s *stream) relist(ctx context.Context, since int64) error {
	v, err := s.link.fetchView(ctx, since)
	if err != nil {
		return err
	}
	if v.Full {
		st := State{Rev: v.Rev, Objects: v.Changes}
		if err := s.applier.Resync(ctx, st); err != nil {
			return fmt.Errorf("%w: %w", errApply, err)
		}
		s.resynced(st)
		return nil
	}
	if v.Since != s.last || v.Rev <= s.last {
		s.applied(s.last) // nothing newer (or not from here): hold on
		return nil
	}
	ev := mqtt.Event{Type: mqtt.EventChanges, Rev: v.Rev, Prev: v.Since, Changes: v.Changes}
	if err := s.applyEvents(ctx, []mqtt.Event{s.withoutStale(&ev)}); err != nil {
		return fmt.Errorf("%w: %w", errApply, err)
	}
	s.log.Info("caught up by REST", "since", v.Since, "rev", v.Rev, "changes", len(v.Changes))
	s.applied(v.Rev)
	return nil
}

// resynced records a whole view applied at st.Rev.
func (s *stream) resynced(st State) {
	s.setLast(st.Rev)
	s.gapUntil = time.Time{}
	s.floor, s.floorMax = nil, 0
	for _, o := range st.Objects {
		if rv := objectRV(o.Object); rv > st.Rev {
			if s.floor == nil {
				s.floor = map[mqtt.ObjectRef]int64{}
			}
			s.floor[o.ObjectRef] = rv
			s.floorMax = max(s.floorMax, rv)
		}
	}
	s.log.Info("resynced by REST", "rev", st.Rev, "objects", len(st.Objects))
	s.link.sendAck(mqtt.AckApplied, st.Rev)
}
