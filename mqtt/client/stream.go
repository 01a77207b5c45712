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
// catch-up) and, if none comes within GapWait (jittered up to twice it),
// relists by REST from last.
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

	// gapUntil: waiting for a catch-up until then (zero: not waiting).
	gapUntil time.Time
}

// link is what the stream needs of the connection and the API server.
type link interface {
	sendAck(t mqtt.AckType, rev int64)
	fetchView(ctx context.Context, since int64) (*mqtt.View, error)
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
		if !s.gapUntil.IsZero() {
			gapTimer = time.After(time.Until(s.gapUntil))
		}
		select {
		case <-ctx.Done():
			return
		case <-s.q.ready:
		case <-gapTimer:
			s.log.Info("no catch-up after a gap; relisting by REST", "rev", s.last)
			s.resync(ctx, s.last)
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
			s.resync(ctx, 0) // nothing held yet: start from a full list
		}
		s.link.sendAck(mqtt.AckHello, s.last)
		return
	}
	ev := it.ev
	if s.last == 0 {
		s.resync(ctx, 0) // nothing held yet: start from a full list
	}
	switch {
	case ev.Type == mqtt.EventRelist:
		s.obeyRelist(ctx, ev)
	case ev.Rev <= s.last:
		s.link.sendAck(mqtt.AckApplied, s.last) // a duplicate; repeat the ack in case it was lost
	case ev.Prev > s.last:
		s.gap(ctx, ev)
	default:
		s.apply(ctx, s.gather(ev))
	}
}

// obeyRelist relists whenever the server asks. A relist at or below the
// revision held means the server does not have what the node holds (its
// datastore was restored from an older snapshot): nothing held is to be
// trusted, so the whole view replaces it.
func (s *stream) obeyRelist(ctx context.Context, ev *mqtt.Event) {
	since := s.last
	if ev.Rev <= s.last {
		since = 0
	}
	s.log.Info("server asked for a relist", "rev", ev.Rev, "held", s.last, "since", since)
	s.resync(ctx, since)
}

// gap handles an Event that shows a missed one: ask for a catch-up once,
// relist when it does not come in time. The wait is jittered: nodes that
// all saw a gap when a server restarted do not relist all at once.
func (s *stream) gap(ctx context.Context, ev *mqtt.Event) {
	if s.gapUntil.IsZero() {
		s.log.Info("gap in the desired stream; asking for a catch-up", "held", s.last, "prev", ev.Prev, "rev", ev.Rev)
		s.gapUntil = time.Now().Add(jittered(2 * s.gapWait)) // between GapWait and twice it
		s.link.sendAck(mqtt.AckHello, s.last)
		return
	}
	if !time.Now().Before(s.gapUntil) {
		s.log.Info("no catch-up after a gap; relisting by REST", "rev", s.last)
		s.resync(ctx, s.last)
	}
}
