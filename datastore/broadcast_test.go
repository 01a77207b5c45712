package datastore

import (
	"fmt"
	"slices"
	"testing"
)

func eventsFor(keys ...string) []Event {
	evs := make([]Event, len(keys))
	for i, k := range keys {
		evs[i] = Event{Type: EventCreate, Revision: int64(i + 1), KV: &KeyValue{Key: k}}
	}
	return evs
}

func receivedKeys(sub *subscription) []string {
	var keys []string
	for {
		select {
		case evs := <-sub.ch:
			for _, ev := range evs {
				keys = append(keys, ev.KV.Key)
			}
		default:
			return keys
		}
	}
}

func TestBroadcasterMatchesPrefixes(t *testing.T) {
	b := newBroadcaster(8)
	subs := map[string]*subscription{}
	for _, p := range []string{"", "/a", "/a/", "/a/b", "/b/", "/zzz/"} {
		subs[p] = b.subscribe(p)
	}
	extra := b.subscribe("/a/") // a second subscriber of one prefix
	// Hundreds of non-matching prefixes must not disturb matching.
	for i := range 300 {
		b.subscribe(fmt.Sprintf("/other/%d/", i))
	}
	b.publish(eventsFor("/a/b", "/ab", "/b/x", "/a", "/c"))
	want := map[string][]string{
		"":      {"/a/b", "/ab", "/b/x", "/a", "/c"},
		"/a":    {"/a/b", "/ab", "/a"},
		"/a/":   {"/a/b"},
		"/a/b":  {"/a/b"},
		"/b/":   {"/b/x"},
		"/zzz/": nil,
	}
	for p, sub := range subs {
		if got := receivedKeys(sub); !slices.Equal(got, want[p]) {
			t.Errorf("prefix %q: got %v, want %v", p, got, want[p])
		}
	}
	if got := receivedKeys(extra); !slices.Equal(got, want["/a/"]) {
		t.Errorf("second subscriber of /a/: got %v, want %v", got, want["/a/"])
	}
}

func TestBroadcasterDropsSlowSubscriber(t *testing.T) {
	b := newBroadcaster(2)
	slow, fast := b.subscribe("/k"), b.subscribe("/k")
	for i := range 5 {
		b.publish(eventsFor(fmt.Sprintf("/k%d", i)))
		receivedKeys(fast)
	}
	var got int
	for range slow.ch {
		got++
	}
	if got != 2 {
		t.Fatalf("slow subscriber: got %d batches before its channel closed, want 2 (its buffer)", got)
	}
	if fast.done {
		t.Fatal("a subscriber that kept up was dropped")
	}
	slow.cancel() // dropping twice is harmless
	fast.cancel()
	if len(b.groups) != 0 || len(b.lengths) != 0 {
		t.Fatalf("after every cancel: got %d groups, lengths %v; want none", len(b.groups), b.lengths)
	}
}

// A progress request queues behind the events already published and
// carries the last published revision; a full channel refuses it.
func TestBroadcasterProgressQueuesBehindEvents(t *testing.T) {
	b := newBroadcaster(2)
	sub := b.subscribe("/a/")
	b.publish(eventsFor("/b/x", "/a/y", "/b/z")) // revisions 1..3
	if !sub.progress() {
		t.Fatal("progress with room in the channel: got false, want true")
	}
	first, second := <-sub.ch, <-sub.ch
	if len(first) != 1 || first[0].KV.Key != "/a/y" {
		t.Fatalf("first batch: got %v, want the event of /a/y", first)
	}
	if len(second) != 1 || second[0].Type != EventProgress || second[0].Revision != 3 {
		t.Fatalf("second batch: got %v, want progress at 3", second)
	}
	b.publish([]Event{{Type: EventCreate, Revision: 4, KV: &KeyValue{Key: "/a/1"}}})
	b.publish([]Event{{Type: EventCreate, Revision: 5, KV: &KeyValue{Key: "/a/2"}}})
	if sub.progress() {
		t.Fatal("progress with a full channel: got true, want false")
	}
}

// Groups share the commit's own events where they take a run of them:
// one commit after another (the scratch map is reused), each group still
// gets exactly its events, and a subscriber appending to its slice cannot
// change what another received.
func TestBroadcasterSharesRunsSafely(t *testing.T) {
	b := newBroadcaster(8)
	all, a, odd := b.subscribe(""), b.subscribe("/a/"), b.subscribe("/o")
	b.publish(eventsFor("/a/1", "/a/2", "/b/3"))
	b.publish(eventsFor("/o1", "/a/4", "/o2"))
	allFirst := <-all.ch
	aFirst := <-a.ch
	_ = append(aFirst, Event{KV: &KeyValue{Key: "/clobber"}})
	if got := keysOf(allFirst); !slices.Equal(got, []string{"/a/1", "/a/2", "/b/3"}) {
		t.Fatalf("after another subscriber appended to its slice: got %v, want the commit's three events", got)
	}
	want := map[*subscription][]string{
		all: {"/o1", "/a/4", "/o2"},
		a:   {"/a/4"},
		odd: {"/o1", "/o2"},
	}
	for sub, keys := range want {
		if got := receivedKeys(sub); !slices.Equal(got, keys) {
			t.Errorf("second commit: got %v, want %v", got, keys)
		}
	}
	if got := keysOf(aFirst); !slices.Equal(got, []string{"/a/1", "/a/2"}) {
		t.Errorf("first commit under /a/: got %v, want [/a/1 /a/2]", got)
	}
}

func keysOf(evs []Event) []string {
	var keys []string
	for _, ev := range evs {
		keys = append(keys, ev.KV.Key)
	}
	return keys
}
