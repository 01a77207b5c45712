package datastore

import (
	"context"
	"database/sql"
	"fmt"
)

// replayChunk bounds the history read in one short read transaction, so a
// long replay never pins the WAL.
const replayChunk = 500

// replayPage is one chunk of history: events after some revision, and the
// revision the read covered up to (all matching events <= upTo are in it
// unless full).
type replayPage struct {
	events []Event
	upTo   int64
	full   bool // hit replayChunk: more may follow
}

// Watch subscribes first, then replays the log after afterRev, then forwards
// live events, skipping any already replayed: every event under prefix with
// a revision > afterRev arrives once, in order.
func (s *SQLite) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan []Event, error) {
	return s.WatchProgress(ctx, prefix, afterRev, nil)
}

// WatchProgress is Watch that answers each request on requests with an
// EventProgress, queued behind the live events already published.
func (s *SQLite) WatchProgress(ctx context.Context, prefix string, afterRev int64, requests <-chan struct{}) (<-chan []Event, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if afterRev < 0 {
		return nil, fmt.Errorf("watch %s: revision is %d, want >= 0: %w", prefix, afterRev, ErrInvalid)
	}
	sub := s.bc.subscribe(prefix)
	first, err := s.replay(ctx, prefix, afterRev)
	if err != nil {
		sub.cancel()
		return nil, fmt.Errorf("watch %s after %d: %w", prefix, afterRev, err)
	}
	out := make(chan []Event)
	started := s.spawn(func() {
		defer close(out)
		defer sub.cancel()
		w := &watchRun{s: s, ctx: ctx, prefix: prefix, out: out, from: afterRev, last: afterRev, requests: requests}
		if w.replayFrom(first) {
			w.forward(sub)
		}
	})
	if !started {
		sub.cancel()
		return nil, ErrClosed
	}
	return out, nil
}

type watchRun struct {
	s        *SQLite
	ctx      context.Context
	prefix   string
	out      chan<- []Event
	from     int64 // the watch's afterRev
	last     int64 // every matching event <= last was delivered
	requests <-chan struct{}
}

func (w *watchRun) send(evs []Event) bool {
	select {
	case w.out <- evs:
		w.last = evs[len(evs)-1].Revision
		return true
	case <-w.ctx.Done():
	case <-w.s.stop:
	}
	return false
}

// replayFrom delivers history page by page until the log is caught up.
func (w *watchRun) replayFrom(page replayPage) bool {
	for {
		if len(page.events) > 0 && !w.send(page.events) {
			return false
		}
		if !page.full {
			w.last = max(w.last, page.upTo)
			return true
		}
		var err error
		if page, err = w.s.replay(w.ctx, w.prefix, w.last); err != nil {
			// Compacted under us, or the store closed: end the watch; the
			// caller resumes from its last revision and learns why.
			return false
		}
	}
}

// forward relays live events newer than the replay until the subscription
// is dropped (too slow, or the store closed) or ctx ends, and answers
// progress requests.
func (w *watchRun) forward(sub *subscription) {
	pending := false // a progress request waits for room in sub's channel
	for {
		select {
		case evs, ok := <-sub.ch:
			if !ok || !w.relay(evs) {
				return
			}
		case _, ok := <-w.requests:
			if !ok {
				w.requests = nil
			}
			pending = ok
		case <-w.ctx.Done():
			return
		case <-w.s.stop:
			return
		}
		if pending {
			pending = !sub.progress()
		}
	}
}

// relay sends what is new in one published batch: the events after last,
// or a progress event, which moves last (everything up to it was taken).
func (w *watchRun) relay(evs []Event) bool {
	if len(evs) == 1 && evs[0].Type == EventProgress {
		rev := max(evs[0].Revision, w.last)
		if rev <= w.from {
			return true
		}
		return w.send([]Event{{Type: EventProgress, Revision: rev}})
	}
	i := 0
	for i < len(evs) && evs[i].Revision <= w.last {
		i++
	}
	return i == len(evs) || w.send(evs[i:])
}

// replay reads up to replayChunk events under prefix after afterRev, in one
// read transaction that also checks afterRev was not compacted.
func (s *SQLite) replay(ctx context.Context, prefix string, afterRev int64) (replayPage, error) {
	var page replayPage
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return page, err
	}
	defer tx.Rollback()
	cur, compact, err := readRevisions(ctx, tx)
	if err != nil {
		return page, err
	}
	if afterRev < compact {
		return page, fmt.Errorf("revision %d, compacted up to %d: %w", afterRev, compact, ErrCompacted)
	}
	page.upTo = cur
	rows, err := tx.StmtContext(ctx, s.reads.replay).QueryContext(ctx, afterRev, cur, prefix, keyUpperBound(prefix), replayChunk)
	if err != nil {
		return page, fmt.Errorf("read history: %w", err)
	}
	if page.events, err = scanEvents(rows); err != nil {
		return page, fmt.Errorf("read history: %w", err)
	}
	page.full = len(page.events) == replayChunk
	return page, nil
}

// scanEvents turns log rows (joined with the row each replaced) into events.
func scanEvents(rows *sql.Rows) ([]Event, error) {
	defer rows.Close()
	var out []Event
	for rows.Next() {
		kv := &KeyValue{}
		var deleted bool
		var prevRev sql.NullInt64
		var prevValue []byte
		if err := rows.Scan(&kv.ModRevision, &kv.Key, &kv.Value, &kv.CreateRevision, &deleted, &prevRev, &prevValue); err != nil {
			return nil, err
		}
		ev := Event{Type: EventUpdate, Revision: kv.ModRevision, KV: kv}
		if prevRev.Valid {
			ev.PrevKV = &KeyValue{Key: kv.Key, Value: prevValue, CreateRevision: kv.CreateRevision, ModRevision: prevRev.Int64}
		}
		switch {
		case deleted:
			ev.Type = EventDelete
		case kv.CreateRevision == kv.ModRevision:
			ev.Type = EventCreate
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}
