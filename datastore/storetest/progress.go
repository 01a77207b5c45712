package storetest

import (
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// nextBatch reads one batch from ch, failing if it closes or none comes.
func nextBatch(t testing.TB, ch <-chan []datastore.Event) []datastore.Event {
	t.Helper()
	select {
	case evs, ok := <-ch:
		if !ok {
			t.Fatal("watch closed, want a batch")
		}
		return evs
	case <-time.After(waitTimeout):
		t.Fatalf("watch: no batch within %v", waitTimeout)
	}
	return nil
}

// wantProgress reads one batch and checks it is a lone progress event at
// least at rev.
func wantProgress(t testing.TB, what string, ch <-chan []datastore.Event, rev int64) int64 {
	t.Helper()
	evs := nextBatch(t, ch)
	if len(evs) != 1 || evs[0].Type != datastore.EventProgress || evs[0].KV != nil || evs[0].Revision < rev {
		t.Fatalf("%s: got %d events starting with %s, want one progress event at >= %d", what, len(evs), fmtEvent(evs[0]), rev)
	}
	return evs[0].Revision
}

// testWatchProgress: a progress answer covers writes under other prefixes,
// never overtakes an event of the watch's own prefix, and a watch from a
// future revision gets none until the store passes that revision.
func (s *suite) testWatchProgress(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	first := mustCreate(t, st, "/p/a", "1")
	req := make(chan struct{}, 1)
	ch, err := st.WatchProgress(ctx, "/p/", 0, req)
	if err != nil {
		t.Fatalf("WatchProgress: %v", err)
	}
	if got := collect(t, ch, 1); got[0].Revision != first {
		t.Fatalf("replay: got %s, want the create at %d", fmtEvent(got[0]), first)
	}
	mustCreate(t, st, "/q/x", "1")
	other := mustCreate(t, st, "/q/y", "1")
	req <- struct{}{}
	wantProgress(t, "after writes elsewhere", ch, other)

	own := mustCreate(t, st, "/p/b", "2")
	req <- struct{}{}
	if evs := nextBatch(t, ch); evs[0].Type != datastore.EventCreate || evs[0].Revision != own {
		t.Fatalf("after a write under the prefix: got %s first, want its create at %d", fmtEvent(evs[0]), own)
	}
	wantProgress(t, "after the write under the prefix", ch, own)

	plain, err := st.Watch(ctx, "/p/", own)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	future := make(chan struct{}, 1)
	ahead, err := st.WatchProgress(ctx, "/p/", own+2, future)
	if err != nil {
		t.Fatalf("WatchProgress from a future revision: %v", err)
	}
	future <- struct{}{}
	expectQuiet(t, ahead)
	mustCreate(t, st, "/q/z", "1")
	mustCreate(t, st, "/q/w", "1") // the store is at the watch's revision: nothing to report yet
	future <- struct{}{}
	expectQuiet(t, ahead)
	past := mustCreate(t, st, "/q/v", "1")
	future <- struct{}{}
	wantProgress(t, "once the store passed the future revision", ahead, past)
	expectQuiet(t, plain) // a plain watch never reports progress
}
