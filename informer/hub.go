package informer

import (
	"errors"
	"strconv"
	"sync"

	"github.com/bramble-edge/bramble/api"
)

// EventType says what an Event is.
type EventType int

// Event types; Progress carries only a revision: every change up to it has
// been published.
const (
	Added EventType = iota
	Modified
	Deleted
	Progress
)

// Event is one change as the cache applied it, shared by every watcher:
// the objects are the cache's (read-only), decoded at most once (a change
// of a resource no handler follows is decoded when a watcher first asks
// for it, lazy.go), and JSON encodes the object once for all of them.
type Event struct {
	Type     EventType
	Resource *api.Resource
	Rev      int64

	cur, prev ref // the new object and the one it replaced (or, for Deleted, the last)

	lastOnce sync.Once
	last     api.Object

	once sync.Once
	data []byte
	err  error
}

// Object is the new object; for Deleted, the last one at the deletion's
// revision. It is nil when the stored value cannot be decoded: skip the
// event, as the cache does.
func (e *Event) Object() api.Object {
	if e.Type != Deleted {
		return e.cur.get()
	}
	e.lastOnce.Do(func() {
		if old := e.prev.get(); old != nil {
			e.last = old.DeepCopyObject().(api.Object)
			e.last.SetResourceVersion(strconv.FormatInt(e.Rev, 10))
		}
	})
	return e.last
}

// Old is the object before a Modified (nil for other events).
func (e *Event) Old() api.Object {
	if e.Type != Modified {
		return nil
	}
	return e.prev.get()
}

// JSON is the object encoded as JSON, made once per event.
func (e *Event) JSON() ([]byte, error) {
	e.once.Do(func() {
		obj := e.Object()
		if obj == nil {
			e.err = errors.New("informer: the stored value cannot be decoded")
			return
		}
		e.data, e.err = api.Encode(obj)
	})
	return e.data, e.err
}

// ringSize is how many recent events the hub keeps for watchers that
// start a little behind.
const ringSize = 1024

// subBuffer is how many events a subscriber may fall behind before it is
// cut off.
const subBuffer = 1024

// hub fans the applied changes out to subscribers, in revision order.
type hub struct {
	mu    sync.Mutex
	ring  []*Event // oldest first
	first int64    // the ring holds every change after first
	live  bool     // a first list was applied: first means something
	subs  map[*Subscription]struct{}
}

// Subscription receives the changes after a revision, then every new one,
// until it is closed or cut off for falling behind (its channel closes).
type Subscription struct {
	ch chan *Event
	h  *hub
}

// Events delivers the changes; it is closed when the subscription ends.
func (s *Subscription) Events() <-chan *Event { return s.ch }

// Close ends the subscription.
func (s *Subscription) Close() {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if _, ok := s.h.subs[s]; ok {
		delete(s.h.subs, s)
		close(s.ch)
	}
}

// subscribe starts a subscription after rev, replaying the kept changes
// after it; ok is false when changes after rev are no longer kept.
func (h *hub) subscribe(after int64) (*Subscription, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.live || after < h.first {
		return nil, false
	}
	var replay []*Event
	for _, e := range h.ring {
		if e.Rev > after {
			replay = append(replay, e)
		}
	}
	s := &Subscription{ch: make(chan *Event, len(replay)+subBuffer), h: h}
	for _, e := range replay {
		s.ch <- e
	}
	if h.subs == nil {
		h.subs = map[*Subscription]struct{}{}
	}
	h.subs[s] = struct{}{}
	return s, true
}

// publish hands e to every subscriber, cutting off those that are full,
// and keeps it (unless it is a Progress).
func (h *hub) publish(e *Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.Type != Progress {
		if len(h.ring) == ringSize {
			h.first = h.ring[0].Rev
			h.ring = h.ring[1:] // append reallocates now and then: O(1) amortized
		}
		h.ring = append(h.ring, e)
	}
	for s := range h.subs {
		select {
		case s.ch <- e:
		default:
			delete(h.subs, s)
			close(s.ch)
		}
	}
}

// reset follows a list: the kept changes and the subscribers (who may
// have missed changes) go; the ring starts after rev.
func (h *hub) reset(rev int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		close(s.ch)
	}
	h.subs, h.ring, h.first, h.live = nil, nil, rev, true
}
