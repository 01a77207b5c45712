package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// write is one acknowledged write as its caller saw it.
type write struct {
	rev   int64
	key   string
	value string
	typ   datastore.EventType
}

// writeLog collects acknowledged writes from many goroutines.
type writeLog struct {
	mu     sync.Mutex
	writes []write
}

func (l *writeLog) add(w write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, w)
}

// contend does rounds of: create an own key, update it, then a
// read-modify-write of a shared key, retrying on conflict.
func contend(ctx context.Context, st datastore.Store, id, rounds int, shared []string, log *writeLog) error {
	for i := range rounds {
		own := fmt.Sprintf("/cw/own/%d/%d", id, i)
		rev, err := st.Create(ctx, own, []byte("c"))
		if err != nil {
			return fmt.Errorf("create %s: %w", own, err)
		}
		log.add(write{rev, own, "c", datastore.EventCreate})
		if rev, err = st.Update(ctx, own, []byte("u"), rev); err != nil {
			return fmt.Errorf("update %s: %w", own, err)
		}
		log.add(write{rev, own, "u", datastore.EventUpdate})
		key, value := shared[(id+i)%len(shared)], fmt.Sprintf("%d/%d", id, i)
		for {
			kv, err := st.Get(ctx, key)
			if err != nil {
				return fmt.Errorf("get %s: %w", key, err)
			}
			rev, err = st.Update(ctx, key, []byte(value), kv.ModRevision)
			if errors.Is(err, datastore.ErrConflict) {
				continue
			}
			if err != nil {
				return fmt.Errorf("update %s: %w", key, err)
			}
			log.add(write{rev, key, value, datastore.EventUpdate})
			break
		}
	}
	return nil
}

// testConcurrentWriters checks that concurrent writers get distinct,
// gap-free revisions, that the log (seen by a watch) matches what each was
// told, and that optimistic updates of shared keys lose nothing.
func (s *suite) testConcurrentWriters(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	shared := []string{"/cw/shared/0", "/cw/shared/1", "/cw/shared/2"}
	for _, k := range shared {
		mustCreate(t, st, k, "init")
	}
	base := mustCurrent(t, st)
	ch, err := st.Watch(ctx, "/cw/", base)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	const writers, rounds = 16, 8
	wait := collectAsync(ch, writers*rounds*3)
	var log writeLog
	var wg sync.WaitGroup
	for id := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := contend(ctx, st, id, rounds, shared, &log); err != nil {
				t.Errorf("writer %d: %v", id, err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	checkGapFree(t, st, base, log.writes)
	checkEventsMatch(t, wait(t), log.writes)
	checkLastWriteWins(t, st, log.writes)
}

// checkGapFree sorts writes by revision and checks they are exactly
// base+1 .. CurrentRevision.
func checkGapFree(t testing.TB, st datastore.Store, base int64, writes []write) {
	t.Helper()
	slices.SortFunc(writes, func(a, b write) int { return int(a.rev - b.rev) })
	for i, w := range writes {
		if w.rev != base+int64(i)+1 {
			t.Fatalf("acknowledged revisions: position %d has %d, want %d (no gaps, no repeats)", i, w.rev, base+int64(i)+1)
		}
	}
	if cur := mustCurrent(t, st); cur != base+int64(len(writes)) {
		t.Fatalf("CurrentRevision: got %d, want %d", cur, base+int64(len(writes)))
	}
}

// checkEventsMatch compares watched events with the sorted writes.
func checkEventsMatch(t testing.TB, events []datastore.Event, writes []write) {
	t.Helper()
	for i, ev := range events {
		w := writes[i]
		if ev.Revision != w.rev || ev.KV.Key != w.key || string(ev.KV.Value) != w.value || ev.Type != w.typ {
			t.Fatalf("event %d: got %s, want %s %s=%s@%d", i, fmtEvent(ev), w.typ, w.key, w.value, w.rev)
		}
	}
}

// checkLastWriteWins checks every key holds the value of its newest write.
func checkLastWriteWins(t testing.TB, st datastore.Store, writes []write) {
	t.Helper()
	last := map[string]write{}
	for _, w := range writes {
		last[w.key] = w
	}
	for key, w := range last {
		kv, err := st.Get(ctxFor(t), key)
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		if kv.ModRevision != w.rev || string(kv.Value) != w.value {
			t.Fatalf("Get(%q): got %s, want %s@%d", key, fmtKV(kv), w.value, w.rev)
		}
	}
}

// testWatchWhileWriting starts watches from the beginning while a writer
// is busy: replay and live delivery must join without a gap or a repeat.
func (s *suite) testWatchWhileWriting(t *testing.T) {
	st := s.open(t)
	ctx := ctxFor(t)
	const n = 200
	var waits []func(testing.TB) []datastore.Event
	done := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < n && err == nil; i++ {
			_, err = st.Create(ctx, fmt.Sprintf("/ww/%03d", i), []byte("v"))
		}
		done <- err
	}()
	for range 5 {
		ch, err := st.Watch(ctx, "/ww/", 0)
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		waits = append(waits, collectAsync(ch, n))
		_, _ = st.List(ctx, "/ww/", datastore.ListOptions{}) // let the writer get ahead
	}
	if err := <-done; err != nil {
		t.Fatalf("writer: %v", err)
	}
	for w, wait := range waits {
		for i, ev := range wait(t) {
			if ev.Revision != int64(i+1) {
				t.Fatalf("watcher %d: event %d has revision %d, want %d", w, i, ev.Revision, i+1)
			}
		}
	}
}
