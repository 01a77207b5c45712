package datastore

import (
	"slices"
	"sync"
)

// broadcaster fans committed events out to subscriptions, grouped by
// prefix. publish never blocks: each subscription has a bounded channel, and
// one that is full is closed and dropped (its watcher resumes from the last
// revision it saw).
//
// Matching costs one map lookup per event per distinct prefix length, not
// per subscriber: for each length in use, the event's key cut to that
// length is looked up among the prefixes.
type broadcaster struct {
	mu      sync.Mutex
	bufSize int
	groups  map[string]*watchGroup
	lengths []int // distinct len(prefix) over groups, sorted
	closed  bool
	// published is the revision of the last event published: every event
	// up to it is in its subscribers' channels (or was taken from them).
	published int64
}

type watchGroup struct {
	prefix string
	subs   map[*subscription]struct{}
}

type subscription struct {
	ch    chan []Event // closed when dropped or on cancel
	group *watchGroup
	b     *broadcaster
	done  bool // guarded by b.mu
}

func newBroadcaster(bufSize int) *broadcaster {
	return &broadcaster{bufSize: bufSize, groups: map[string]*watchGroup{}}
}

// subscribe registers interest in keys under prefix. The subscription's
// channel is closed at once when the broadcaster is closed.
func (b *broadcaster) subscribe(prefix string) *subscription {
	b.mu.Lock()
	defer b.mu.Unlock()
	sub := &subscription{ch: make(chan []Event, b.bufSize), b: b}
	if b.closed {
		sub.done = true
		close(sub.ch)
		return sub
	}
	g := b.groups[prefix]
	if g == nil {
		g = &watchGroup{prefix: prefix, subs: map[*subscription]struct{}{}}
		b.groups[prefix] = g
		b.recountLengths()
	}
	g.subs[sub] = struct{}{}
	sub.group = g
	return sub
}

// cancel drops the subscription; safe to call more than once.
func (s *subscription) cancel() {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.dropLocked(s)
}

func (b *broadcaster) dropLocked(s *subscription) {
	if s.done {
		return
	}
	s.done = true
	close(s.ch)
	delete(s.group.subs, s)
	if len(s.group.subs) == 0 {
		delete(b.groups, s.group.prefix)
		b.recountLengths()
	}
}

func (b *broadcaster) recountLengths() {
	b.lengths = b.lengths[:0]
	for p := range b.groups {
		if !slices.Contains(b.lengths, len(p)) {
			b.lengths = append(b.lengths, len(p))
		}
	}
	slices.Sort(b.lengths)
}

// publish delivers one commit's events, in order, to every subscription
// whose prefix matches; it is called by the writer in revision order.
func (b *broadcaster) publish(events []Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(events) > 0 {
		b.published = events[len(events)-1].Revision
	}
	if len(b.groups) == 0 {
		return
	}
	matched := map[*watchGroup][]Event{}
	for _, ev := range events {
		key := ev.KV.Key
		for _, n := range b.lengths {
			if n > len(key) {
				break
			}
			if g := b.groups[key[:n]]; g != nil {
				matched[g] = append(matched[g], ev)
			}
		}
	}
	for g, evs := range matched {
		for sub := range g.subs {
			select {
			case sub.ch <- evs:
			default:
				b.dropLocked(sub) // too far behind: cut off
			}
		}
	}
}

// progress queues, behind the events already queued for s, a progress
// event at the last revision published: when the watcher takes it, it has
// taken every matching event up to that revision. It reports false when
// the channel is full (try again once the watcher has taken some).
func (s *subscription) progress() bool {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.done {
		return true // closed: the watcher ends, nothing to answer
	}
	select {
	case s.ch <- []Event{{Type: EventProgress, Revision: b.published}}:
		return true
	default:
		return false
	}
}

// close drops every subscription and refuses new ones.
func (b *broadcaster) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for _, g := range b.groups {
		for sub := range g.subs {
			b.dropLocked(sub)
		}
	}
}
