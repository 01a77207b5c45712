package listwatch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/storetest"
)

// next receives one batch through w, failing after a timeout.
func next(t testing.TB, ctx context.Context, w *Watch) []datastore.Event {
	t.Helper()
	for {
		ch, err := w.Chan(ctx)
		if err != nil {
			t.Fatalf("Chan: %v", err)
		}
		select {
		case batch, ok := <-ch:
			w.Recv(batch, ok)
			if ok {
				return batch
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no batch within 10s")
		}
	}
}

// A cut-off watch resumes after the last revision received; a compacted
// one is reported, not resumed.
func TestWatchResumesThenReportsCompaction(t *testing.T) {
	ctx := context.Background()
	sqlite := openStore(t)
	store := storetest.NewFaults(sqlite)
	w := NewWatch(store, "/p/", 0, WatchConfig{Logger: quiet, Backoff: fastBackoff})
	defer w.Close()
	first := mustPut(t, store, "/p/a", "1")
	if got := next(t, ctx, w); got[0].Revision != first || w.Last() != first {
		t.Fatalf("first batch: got rev %d (Last %d), want %d", got[0].Revision, w.Last(), first)
	}
	store.CutWatches("/p/")
	store.FailWatches("/p/", 2, errors.New("injected"))
	second := mustPut(t, store, "/p/b", "1")
	if got := next(t, ctx, w); got[0].Revision != second {
		t.Fatalf("after the cut-off: got rev %d, want %d and nothing repeated", got[0].Revision, second)
	}
	if n := store.Opened("/p/"); n != 2 {
		t.Fatalf("watches opened: got %d, want 2", n)
	}

	store.CutWatches("/p/")
	ch, _ := w.Chan(ctx)
	if batch, ok := <-ch; ok {
		t.Fatalf("after a cut-off: got %v, want the channel closed", batch)
	} else {
		w.Recv(batch, ok)
	}
	mustPut(t, store, "/q/x", "1")
	rev := mustPut(t, store, "/q/y", "1")
	if err := sqlite.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Chan(ctx); !errors.Is(err, datastore.ErrCompacted) {
		t.Fatalf("Chan after compaction: got %v, want ErrCompacted", err)
	}
	w.Reset(rev)
	third := mustPut(t, store, "/p/c", "1")
	if got := next(t, ctx, w); got[0].Revision != third {
		t.Fatalf("after Reset: got rev %d, want %d", got[0].Revision, third)
	}
}

// Progress requests are answered, also across a resume.
func TestWatchProgress(t *testing.T) {
	ctx := context.Background()
	store := storetest.NewFaults(openStore(t))
	w := NewWatch(store, "/p/", 0, WatchConfig{Logger: quiet, Backoff: fastBackoff, Progress: true})
	defer w.Close()
	if _, err := w.Chan(ctx); err != nil {
		t.Fatal(err)
	}
	rev := mustPut(t, store, "/q/x", "1")
	w.RequestProgress()
	got := next(t, ctx, w)
	if got[0].Type != datastore.EventProgress || got[0].Revision < rev || w.Last() != got[0].Revision {
		t.Fatalf("got %v (Last %d), want progress at >= %d", got[0], w.Last(), rev)
	}
	store.CutWatches("/p/")
	rev = mustPut(t, store, "/q/y", "1")
	w.RequestProgress()
	if got := next(t, ctx, w); got[0].Type != datastore.EventProgress || got[0].Revision < rev {
		t.Fatalf("after a resume: got %v, want progress at >= %d", got[0], rev)
	}
}

// A closed store ends the watch instead of retrying forever.
func TestWatchOnAClosedStore(t *testing.T) {
	store := openStore(t)
	w := NewWatch(store, "/p/", 0, WatchConfig{Logger: quiet, Backoff: fastBackoff})
	store.Close()
	if _, err := w.Chan(context.Background()); !errors.Is(err, datastore.ErrClosed) {
		t.Fatalf("Chan on a closed store: got %v, want ErrClosed", err)
	}
}
