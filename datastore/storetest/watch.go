package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// waitTimeout bounds how long a test waits for an event that must come.
const waitTimeout = 20 * time.Second

// collect reads n events from ch, failing if the channel closes or they do
// not come in time.
func collect(t testing.TB, ch <-chan []datastore.Event, n int) []datastore.Event {
	t.Helper()
	var got []datastore.Event
	timeout := time.After(waitTimeout)
	for len(got) < n {
		select {
		case evs, ok := <-ch:
			if !ok {
				t.Fatalf("watch closed after %d events, want %d", len(got), n)
			}
			got = append(got, evs...)
		case <-timeout:
			t.Fatalf("watch: got %d events in %v, want %d", len(got), waitTimeout, n)
		}
	}
	if len(got) > n {
		t.Fatalf("watch: got %d events, want %d: extra %s", len(got), n, fmtEvent(got[n]))
	}
	return got
}

// collectAsync reads n events from ch in the background, so a watch is
// drained while the test writes; wait returns them (failing like collect).
func collectAsync(ch <-chan []datastore.Event, n int) (wait func(t testing.TB) []datastore.Event) {
	got := make(chan []datastore.Event, 1)
	go func() {
		var evs []datastore.Event
		for batch := range ch {
			evs = append(evs, batch...)
			if len(evs) >= n {
				break
			}
		}
		got <- evs
	}()
	return func(t testing.TB) []datastore.Event {
		t.Helper()
		select {
		case evs := <-got:
			if len(evs) != n {
				t.Fatalf("watch: got %d events before it closed, want %d", len(evs), n)
			}
			return evs
		case <-time.After(waitTimeout):
			t.Fatalf("watch: no %d events within %v", n, waitTimeout)
		}
		return nil
	}
}

// expectQuiet fails if ch delivers anything within a short while.
func expectQuiet(t testing.TB, ch <-chan []datastore.Event) {
	t.Helper()
	select {
	case evs, ok := <-ch:
		if ok {
			t.Fatalf("watch: got unexpected %s", fmtEvent(evs[0]))
		}
		t.Fatalf("watch closed unexpectedly")
	case <-time.After(50 * time.Millisecond):
	}
}

func checkEvents(t testing.TB, what string, got, want []datastore.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d events, want %d", what, len(got), len(want))
	}
	for i := range want {
		checkEvent(t, fmt.Sprintf("%s, event %d", what, i), got[i], want[i])
	}
}

func underPrefix(evs []datastore.Event, prefix string) []datastore.Event {
	var out []datastore.Event
	for _, ev := range evs {
		if strings.HasPrefix(ev.KV.Key, prefix) {
			out = append(out, ev)
		}
	}
	return out
}

func (s *suite) testWatchReplayAndLive(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	m := newModel()
	m.apply(t, st, "create", "/w/a", "1")
	m.apply(t, st, "create", "/x/other", "1")
	m.apply(t, st, "update", "/w/a", "2")
	m.apply(t, st, "create", "/w/b", "1")
	m.apply(t, st, "delete", "/w/a", "")
	m.apply(t, st, "create", "/w/a", "reborn")

	all, err := st.Watch(ctx, "/w/", 0)
	if err != nil {
		t.Fatalf("Watch from 0: %v", err)
	}
	want := underPrefix(m.eventsAfter(0), "/w/")
	checkEvents(t, "replay from 0", collect(t, all, len(want)), want)

	after := m.first + 2
	part, err := st.Watch(ctx, "/w/", after)
	if err != nil {
		t.Fatalf("Watch after %d: %v", after, err)
	}
	want = underPrefix(m.eventsAfter(after), "/w/")
	checkEvents(t, fmt.Sprintf("replay after %d", after), collect(t, part, len(want)), want)

	last := m.last
	m.apply(t, st, "update", "/w/b", "2")
	m.apply(t, st, "create", "/x/other2", "1")
	m.apply(t, st, "delete", "/w/b", "")
	want = underPrefix(m.eventsAfter(last), "/w/")
	checkEvents(t, "live events (replayed watch)", collect(t, all, len(want)), want)
	checkEvents(t, "live events (partial watch)", collect(t, part, len(want)), want)
	expectQuiet(t, all)
}

// testWatchPrefixes runs watchers on different (overlapping) prefixes
// while writers write everywhere: each sees exactly its keys, in order.
func (s *suite) testWatchPrefixes(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	prefixes := []string{"", "/wp/", "/wp/a", "/wp/a/", "/wp/b/", "/wp/none/"}
	chans := map[string]<-chan []datastore.Event{}
	for _, p := range prefixes {
		ch, err := st.Watch(ctx, p, 0)
		if err != nil {
			t.Fatalf("Watch(%q): %v", p, err)
		}
		chans[p] = ch
	}
	writeConcurrently(t, st, []string{"/wp/a/1", "/wp/a-long/1", "/wp/b/1", "/wp/c/1", "/zz"}, 10)
	if t.Failed() {
		return
	}
	total := int(mustCurrent(t, st))
	everything := collect(t, chans[""], total)
	for i, ev := range everything {
		if ev.Revision != int64(i+1) {
			t.Fatalf("watch of everything: event %d has revision %d, want %d", i, ev.Revision, i+1)
		}
	}
	for _, p := range prefixes[1:] {
		want := underPrefix(everything, p)
		checkEvents(t, fmt.Sprintf("watch of %q", p), collect(t, chans[p], len(want)), want)
	}
	expectQuiet(t, chans["/wp/none/"])
}

// writeConcurrently gives each key a writer that creates it and updates it
// until it has n versions.
func writeConcurrently(t *testing.T, st datastore.Store, keys []string, n int) {
	ctx := ctxFor(t)
	var wg sync.WaitGroup
	for w, key := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rev, err := st.Create(ctx, key, []byte("0"))
			for i := 1; i < n && err == nil; i++ {
				rev, err = st.Update(ctx, key, []byte(fmt.Sprint(w, i)), rev)
			}
			if err != nil {
				t.Errorf("writer of %s: %v", key, err)
			}
		}()
	}
	wg.Wait()
}

func (s *suite) testWatchCancel(t *testing.T) {
	st := s.open(t)
	ctx, cancel := context.WithCancel(ctxFor(t))
	ch, err := st.Watch(ctx, "/c/", 0)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	mustCreate(t, st, "/c/a", "1")
	collect(t, ch, 1)
	cancel()
	select {
	case evs, ok := <-ch:
		if ok {
			t.Fatalf("after cancel: got %s, want the channel closed", fmtEvent(evs[0]))
		}
	case <-time.After(waitTimeout):
		t.Fatalf("after cancel: channel still open after %v", waitTimeout)
	}
}

// testWatchFuture: a watch after a revision not yet written delivers only
// events after it.
func (s *suite) testWatchFuture(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	mustCreate(t, st, "/f/a", "1")
	ch, err := st.Watch(ctx, "/f/", 3)
	if err != nil {
		t.Fatalf("Watch after a future revision: %v", err)
	}
	mustCreate(t, st, "/f/b", "2")
	mustCreate(t, st, "/f/c", "3")
	mustCreate(t, st, "/f/d", "4")
	got := collect(t, ch, 1)
	if got[0].Revision != 4 || got[0].KV.Key != "/f/d" {
		t.Fatalf("watch after 3: got %s, want the create of /f/d at 4", fmtEvent(got[0]))
	}
}
