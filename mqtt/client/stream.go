package client

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// stream applies the node's desired Events in order on one goroutine. It
// holds the revision the Applier is at (last) and follows the chain:
// an Event with Rev <= last is a duplicate and skipped; one with
// Prev <= last < Rev is the next and applied; one with Prev > last means
// something was missed: the stream says hello (asking the server for a
// catch-up) and, if none comes within GapWait, resyncs by REST.
type stream struct {
	applier       Applier
	link          link
	q             *queue
	log           *slog.Logger
	gapWait       time.Duration
	helloInterval time.Duration
	done          chan struct{} // closed when run returns

	last int64
	pub  atomic.Int64 // last, for Rev()

	// floor: objects a resync read newer than its Rev; changes to them at
	// or below that revision are stale and left out.
	floor    map[mqtt.ObjectRef]int64
	floorMax int64

	gapSince time.Time // waiting for a catch-up since then (zero: not waiting)
}

// link is what the stream needs of the connection and the API server.
type link interface {
	sendAck(t mqtt.AckType, rev int64)
	fetchState(ctx context.Context) (State, error)
	connected() bool
}

func newStream(c *Client) *stream {
	s := &stream{applier: c.cfg.Applier, link: c, q: c.q, log: c.log, gapWait: c.cfg.GapWait,
		helloInterval: c.cfg.HelloInterval, done: make(chan struct{})}
	s.setLast(max(c.cfg.Rev, 0))
	return s
}

func (s *stream) rev() int64 { return s.pub.Load() }

func (s *stream) setLast(rev int64) {
	s.last = rev
	s.pub.Store(rev)
}

func (s *stream) run(ctx context.Context) {
	defer close(s.done)
	idle := time.NewTimer(s.helloInterval)
	defer idle.Stop()
	for {
		if it, ok := s.q.pop(); ok {
			s.handle(ctx, it)
			idle.Reset(s.helloInterval)
			continue
		}
		var gapTimer <-chan time.Time
		if !s.gapSince.IsZero() {
			gapTimer = time.After(time.Until(s.gapSince.Add(s.gapWait)))
		}
		select {
		case <-ctx.Done():
			return
		case <-s.q.ready:
		case <-gapTimer:
			s.log.Info("no catch-up after a gap; resyncing by REST", "rev", s.last)
			s.resync(ctx)
		case <-idle.C:
			s.idleHello()
			idle.Reset(s.helloInterval)
		}
	}
}

// idleHello repeats the hello when nothing arrived for a while: a hello,
// or Events, lost while the broker restarted would otherwise go unnoticed
// until the node's next change.
func (s *stream) idleHello() {
	if s.last > 0 && s.link.connected() {
		s.link.sendAck(mqtt.AckHello, s.last)
	}
}

func (s *stream) handle(ctx context.Context, it item) {
	if it.connected {
		if s.last == 0 {
			s.resync(ctx) // nothing held yet: start from a full list
		}
		s.link.sendAck(mqtt.AckHello, s.last)
		return
	}
	ev := it.ev
	if s.last == 0 {
		s.resync(ctx) // nothing held yet: start from a full list
	}
	switch {
	case ev.Type == mqtt.EventRelist:
		if ev.Rev > s.last {
			s.log.Info("server asked for a relist", "rev", ev.Rev, "held", s.last)
			s.resync(ctx)
		}
	case ev.Rev <= s.last:
		s.link.sendAck(mqtt.AckApplied, s.last) // a duplicate; repeat the ack in case it was lost
	case ev.Prev > s.last:
		s.gap(ctx, ev)
	default:
		s.apply(ctx, s.gather(ev))
	}
}

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

// gap handles an Event that shows a missed one: ask for a catch-up once,
// resync when it does not come in time.
func (s *stream) gap(ctx context.Context, ev *mqtt.Event) {
	if s.gapSince.IsZero() {
		s.log.Info("gap in the desired stream; asking for a catch-up", "held", s.last, "prev", ev.Prev, "rev", ev.Rev)
		s.gapSince = time.Now()
		s.link.sendAck(mqtt.AckHello, s.last)
		return
	}
	if time.Since(s.gapSince) >= s.gapWait {
		s.log.Info("no catch-up after a gap; resyncing by REST", "rev", s.last)
		s.resync(ctx)
	}
}

func (s *stream) apply(ctx context.Context, batch []*mqtt.Event) {
	evs := make([]mqtt.Event, len(batch))
	for i, ev := range batch {
		evs[i] = s.withoutStale(ev)
	}
	rev := evs[len(evs)-1].Rev
	var err error
	if b, ok := s.applier.(BatchApplier); ok {
		err = b.ApplyBatch(ctx, evs)
	} else {
		err = s.applier.Apply(ctx, evs[0]) // gather batches only for a BatchApplier
	}
	if err != nil {
		s.log.Warn("apply failed; resyncing by REST", "rev", rev, "events", len(evs), "err", err)
		s.resync(ctx)
		return
	}
	s.setLast(rev)
	s.gapSince = time.Time{}
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

// resync reads the view by REST and hands it to the Applier, retrying with
// back-off until it succeeds or ctx ends.
func (s *stream) resync(ctx context.Context) {
	wait := 200 * time.Millisecond
	for ctx.Err() == nil {
		st, err := s.link.fetchState(ctx)
		if err == nil {
			err = s.applier.Resync(ctx, st)
		}
		if err == nil {
			s.resynced(st)
			return
		}
		s.log.Warn("resync failed; retrying", "err", err, "in", wait)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}

func (s *stream) resynced(st State) {
	s.setLast(st.Rev)
	s.gapSince = time.Time{}
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
