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
	// matched is publish's scratch, reused from commit to commit: which
	// of one commit's events each group takes.
	matched map[*watchGroup]match
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
	return &broadcaster{bufSize: bufSize, groups: map[string]*watchGroup{}, matched: map[*watchGroup]match{}}
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
	defer clear(b.matched)
	for i := range events {
		key := events[i].KV.Key
		for _, n := range b.lengths {
			if n > len(key) {
				break
			}
			if g := b.groups[key[:n]]; g != nil {
				b.matched[g] = b.matched[g].add(events, i)
			}
		}
	}
	for g, m := range b.matched {
		b.deliverLocked(g, m.events(events))
	}
}

// deliverLocked queues evs for every subscription of g, cutting off those
// too far behind to take them.
func (b *broadcaster) deliverLocked(g *watchGroup, evs []Event) {
	for sub := range g.subs {
		select {
		case sub.ch <- evs:
		default:
			b.dropLocked(sub)
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

// match is the events of one commit a group takes: while they are a run
// of consecutive events (always, for a commit of one write, or a group
// that takes everything) the group gets a slice of the commit's own
// events, shared with every other group and the writer, which no longer
// touches it; otherwise a copy.
type match struct {
	first, n int     // events[first:first+n], while copied is nil
	copied   []Event // once the run broke
}

// add takes events[i] into m.
func (m match) add(events []Event, i int) match {
	switch {
	case m.n == 0 && m.copied == nil:
		return match{first: i, n: 1}
	case m.copied == nil && m.first+m.n == i:
		m.n++
		return m
	case m.copied == nil:
		m.copied = append(make([]Event, 0, m.n+1), events[m.first:m.first+m.n]...)
	}
	m.copied = append(m.copied, events[i])
	return m
}

// events is what m took, as the slice its subscribers receive.
func (m match) events(events []Event) []Event {
	if m.copied != nil {
		return m.copied
	}
	return events[m.first : m.first+m.n : m.first+m.n]
}
