// Package listwatch keeps a consumer in step with the keys under one
// datastore prefix. It is the one way bramble follows a prefix:
//
//   - a Follower lists the prefix, hands the list to its Handler, then
//     watches from the list's revision and hands over every change; when
//     the store cuts a slow watch off it resumes after the last revision
//     handed over; when that revision has been compacted it lists again and
//     hands the new list over as a replacement (it never jumps ahead,
//     losing what happened in between); failures are retried with backoff;
//     Stop waits for every goroutine it started.
//   - a Watch is the watch-and-resume part alone, for a consumer that must
//     not list again (an HTTP watch ends with 410 instead) or that runs the
//     loop itself (the MQTT publisher's dispatcher).
//   - a Mirror is a Handler that turns lists and events into per-key
//     upserts and removals, for caches (informers, the scheduler's).
package listwatch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/bramble-edge/bramble/datastore"
)

// Handler is told what is under the prefix, one call at a time, on the
// goroutine that runs the Follower.
type Handler interface {
	// OnReplace hands over the whole prefix: after the first list and after
	// every list made because the watch fell behind compaction. Read it
	// with list.Each; whatever the handler holds that Each did not give is
	// gone. An error (Each's, or the handler's own) has the list made
	// again later.
	OnReplace(ctx context.Context, list *List) error
	// OnEvent hands over one change after the last list, in revision
	// order. ev and its KeyValues are shared: read-only.
	OnEvent(ctx context.Context, ev *datastore.Event)
}

// ProgressHandler is a Handler that also wants the revisions of progress
// answers (see Config.Progress): every change up to rev has been handed
// over.
type ProgressHandler interface {
	Handler
	OnProgress(ctx context.Context, rev int64)
}

// Config tunes a Follower; zero values get defaults.
type Config struct {
	Logger  *slog.Logger // default slog.Default()
	Backoff Backoff      // between failed lists and failed watches
	// Progress opens the watches so that RequestProgress is answered; a
	// ProgressHandler is told each answer's revision.
	Progress bool
}

// Follower follows one prefix for one Handler.
type Follower struct {
	store  datastore.Store
	prefix string
	h      Handler
	log    *slog.Logger
	w      *Watch
	back   Backoff

	synced   chan struct{}
	syncOnce sync.Once
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// New makes a Follower of prefix for h; Start or Go runs it.
func New(store datastore.Store, prefix string, h Handler, cfg Config) *Follower {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Follower{store: store, prefix: prefix, h: h, log: log, back: cfg.Backoff, synced: make(chan struct{}),
		w: NewWatch(store, prefix, 0, WatchConfig{Logger: log, Backoff: cfg.Backoff, Progress: cfg.Progress})}
}

// Start lists the prefix and hands the list over (an error is returned and
// nothing runs), then follows the prefix on a goroutine of its own until
// Stop or ctx ends.
func (f *Follower) Start(ctx context.Context) error {
	if err := f.Replace(ctx); err != nil {
		return err
	}
	f.spawn(ctx, f.Follow)
	return nil
}

// Go is Start with the first list also on the Follower's goroutine,
// retried until it succeeds; Synced says when it has been handed over.
func (f *Follower) Go(ctx context.Context) {
	f.spawn(ctx, func(ctx context.Context) {
		for f.Replace(ctx) != nil {
			if !f.back.Wait(ctx) {
				return
			}
		}
		f.back.Reset()
		f.Follow(ctx)
	})
}

func (f *Follower) spawn(ctx context.Context, run func(context.Context)) {
	ctx, f.cancel = context.WithCancel(ctx)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		run(ctx)
	}()
}

// Stop ends the Follower's goroutine and waits for it.
func (f *Follower) Stop() {
	if f.cancel != nil {
		f.cancel()
	}
	f.wg.Wait()
}

// RequestProgress asks the watch for a progress answer (Config.Progress);
// safe from any goroutine, never blocks.
func (f *Follower) RequestProgress() { f.w.RequestProgress() }

// Synced is closed once a first list has been handed over.
func (f *Follower) Synced() <-chan struct{} { return f.synced }

// Revision is the revision every change up to which has been handed over.
// Not safe to call while the Follower's goroutine runs.
func (f *Follower) Revision() int64 { return f.w.Last() }

// Replace lists the prefix and hands the list to OnReplace; the watch then
// follows from the list's revision. A list cut short because its revision
// was compacted between pages is made again at once.
func (f *Follower) Replace(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		l := &List{ctx: ctx, store: f.store, prefix: f.prefix}
		err := f.h.OnReplace(ctx, l)
		if err == nil && !l.read {
			err = errors.New("the handler did not read the list")
		}
		if errors.Is(err, errCompactedMidList) && attempt < 3 {
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				f.log.Warn("list failed", "prefix", f.prefix, "err", err)
			}
			return fmt.Errorf("follow %s: %w", f.prefix, err)
		}
		f.w.Reset(l.Revision())
		f.syncOnce.Do(func() { close(f.synced) })
		return nil
	}
}

// Follow hands over every change until ctx ends (or the store closes),
// resuming cut-off watches and listing again when the watch fell behind
// compaction. Run it on one goroutine at a time, after Replace.
func (f *Follower) Follow(ctx context.Context) {
	defer f.w.Close()
	for {
		ch, err := f.w.Chan(ctx)
		switch {
		case errors.Is(err, datastore.ErrCompacted):
			f.log.Warn("watch fell behind compaction; listing again", "prefix", f.prefix, "rev", f.w.Last())
			if !f.relist(ctx) {
				return
			}
			continue
		case err != nil:
			if ctx.Err() == nil {
				f.log.Warn("following ends", "prefix", f.prefix, "rev", f.w.Last(), "err", err)
			}
			return
		}
		select {
		case batch, ok := <-ch:
			f.w.Recv(batch, ok)
			for i := range batch {
				if batch[i].Type != datastore.EventProgress {
					f.h.OnEvent(ctx, &batch[i])
				} else if p, ok := f.h.(ProgressHandler); ok {
					p.OnProgress(ctx, batch[i].Revision)
				}
			}
		case <-ctx.Done():
			return
		}
	}
}

// relist lists again until it succeeds or ctx ends.
func (f *Follower) relist(ctx context.Context) bool {
	for f.Replace(ctx) != nil {
		if !f.back.Wait(ctx) {
			return false
		}
	}
	f.back.Reset()
	return true
}
