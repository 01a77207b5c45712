package listwatch

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// Backoff spaces attempts after failures: the wait doubles from Min up to
// Max and starts again from Min after a success.
type Backoff struct {
	Min time.Duration // default 100 ms
	Max time.Duration // default 5 s
	cur time.Duration
}

// Wait sleeps the current step, or until ctx ends (then it reports false).
func (b *Backoff) Wait(ctx context.Context) bool {
	b.cur = min(max(2*b.cur, b.min()), b.max())
	t := time.NewTimer(b.cur)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Reset makes the next Wait the shortest again.
func (b *Backoff) Reset() { b.cur = 0 }

func (b *Backoff) min() time.Duration { return cmpOr(b.Min, 100*time.Millisecond) }
func (b *Backoff) max() time.Duration { return max(cmpOr(b.Max, 5*time.Second), b.min()) }

func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Watch is the watch-and-resume part of following a prefix: a datastore
// watch after a revision that, when the store cuts it off (a slow
// watcher's channel is closed), opens again after the last revision
// handed out, backing off while opening fails. It never lists: what a
// compacted revision means is the caller's choice (a Follower lists again;
// an HTTP watch ends with 410 Gone). One goroutine uses a Watch at a time.
type Watch struct {
	store    datastore.Store
	prefix   string
	log      *slog.Logger
	last     int64 // every event up to last was handed out
	ch       <-chan []datastore.Event
	cancel   context.CancelFunc // ends ch's datastore watch
	got      bool               // ch delivered something
	wait     bool               // the last channel closed empty: back off first
	requests chan struct{}      // progress requests; nil without Progress
	backoff  Backoff
}

// WatchConfig tunes a Watch; zero values get defaults.
type WatchConfig struct {
	Logger  *slog.Logger // default slog.Default()
	Backoff Backoff
	// Progress opens the datastore watches with WatchProgress, so that
	// RequestProgress is answered with an EventProgress.
	Progress bool
}

// NewWatch makes a Watch of prefix after revision after; Open or Chan
// starts it.
func NewWatch(store datastore.Store, prefix string, after int64, cfg WatchConfig) *Watch {
	w := &Watch{store: store, prefix: prefix, log: cfg.Logger, last: after, backoff: cfg.Backoff}
	if w.log == nil {
		w.log = slog.Default()
	}
	if cfg.Progress {
		w.requests = make(chan struct{}, 1)
	}
	return w
}

// Last is the revision every event up to which was handed out.
func (w *Watch) Last() int64 { return w.last }

// Open opens the datastore watch after Last if none is open, in one
// attempt; its error is the store's (datastore.ErrCompacted when Last was
// compacted).
func (w *Watch) Open(ctx context.Context) error {
	if w.ch != nil {
		return nil
	}
	wctx, cancel := context.WithCancel(ctx)
	var err error
	if w.requests != nil {
		w.ch, err = w.store.WatchProgress(wctx, w.prefix, w.last, w.requests)
	} else {
		w.ch, err = w.store.Watch(wctx, w.prefix, w.last)
	}
	if err != nil {
		cancel()
		return err
	}
	w.cancel, w.got = cancel, false
	return nil
}

// Chan returns the open watch's channel, opening one first if needed and
// retrying with backoff until ctx ends. It gives up only when Last was
// compacted (an error wrapping datastore.ErrCompacted), when the store is
// closed, or when ctx ends. Pass what the channel delivers to Recv.
func (w *Watch) Chan(ctx context.Context) (<-chan []datastore.Event, error) {
	if w.ch == nil && w.wait {
		w.wait = false
		if !w.backoff.Wait(ctx) {
			return nil, ctx.Err()
		}
	}
	for w.ch == nil {
		err := w.Open(ctx)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, datastore.ErrCompacted), errors.Is(err, datastore.ErrClosed):
			return nil, err
		default:
			w.log.Warn("datastore watch failed; retrying", "prefix", w.prefix, "rev", w.last, "err", err)
			if !w.backoff.Wait(ctx) {
				return nil, ctx.Err()
			}
		}
	}
	return w.ch, nil
}

// Recv takes what a receive from the channel of Chan gave: a batch moves
// Last on; a closed channel (the store cut the watch off, or ctx ended)
// is let go, and the next Chan resumes after Last. A channel that closes
// before delivering anything counts as a failure: the next Chan waits.
func (w *Watch) Recv(batch []datastore.Event, ok bool) {
	if !ok {
		w.wait = !w.got
		w.Close()
		return
	}
	if len(batch) > 0 {
		w.last = batch[len(batch)-1].Revision
		w.got = true
		w.backoff.Reset()
	}
}

// Reset drops the open watch, if any, and makes the next one start after
// rev (a caller that listed again at rev).
func (w *Watch) Reset(rev int64) {
	w.Close()
	w.last = rev
}

// Close ends the open datastore watch, if any.
func (w *Watch) Close() {
	if w.cancel != nil {
		w.cancel()
	}
	w.ch, w.cancel = nil, nil
}

// RequestProgress asks the open watch (or the next one) for an
// EventProgress; only with WatchConfig.Progress. It never blocks: a
// request already waiting covers this one.
func (w *Watch) RequestProgress() {
	select {
	case w.requests <- struct{}{}:
	default:
	}
}
