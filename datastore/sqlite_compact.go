package datastore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bramble-edge/bramble/metrics"
)

// compactChunk is how many revisions one compaction transaction covers, so
// writes queued behind it wait milliseconds, not seconds.
const compactChunk = 2000

// Compact drops history older than rev: every row superseded at or before
// rev, and every delete at or before rev. A key's latest row is never
// removed, so the state as of rev and everything after it stay readable.
// It runs in chunks through the writer queue, between write batches.
func (s *SQLite) Compact(ctx context.Context, rev int64) error {
	if s.closed.Load() {
		return ErrClosed
	}
	for {
		done := s.compactRev.Load()
		switch cur := s.rev.Load(); {
		case rev > cur:
			return fmt.Errorf("compact to %d, latest is %d: %w", rev, cur, ErrFutureRevision)
		case rev < done:
			return fmt.Errorf("compact to %d, already compacted to %d: %w", rev, done, ErrCompacted)
		case rev == done:
			return nil
		}
		res := s.submit(ctx, &writeReq{kind: opCompact, expectRev: min(rev, done+compactChunk)})
		if res.err != nil {
			return fmt.Errorf("compact to %d: %w", rev, res.err)
		}
	}
}

// compactStep runs in the writer: one transaction moving the compact
// revision from where it is to at most r.expectRev.
func (w *writer) compactStep(r *writeReq) writeResult {
	from, to := w.s.compactRev.Load(), r.expectRev
	if to <= from {
		return writeResult{}
	}
	if to > w.rev {
		return writeResult{err: fmt.Errorf("compact to %d, latest is %d: %w", to, w.rev, ErrFutureRevision)}
	}
	err := w.inTx(func() error {
		if _, err := w.stmts.compactSuperseded.run(from, to); err != nil {
			return fmt.Errorf("drop superseded rows: %w", err)
		}
		if _, err := w.stmts.compactDeletes.run(from, to); err != nil {
			return fmt.Errorf("drop deletes: %w", err)
		}
		_, err := w.stmts.setCompactRev.run(to)
		return err
	})
	if err != nil {
		return writeResult{err: err}
	}
	w.s.compactRev.Store(to)
	metrics.StoreCompactions.Inc()
	metrics.StoreCompactRev.Set(float64(to))
	return writeResult{rev: to}
}

// compactLoop keeps the newest CompactRetain revisions readable, compacting
// every CompactInterval. It writes nothing when there is nothing to drop, so
// an idle cluster does not wear its SD card.
func (s *SQLite) compactLoop() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stop
		cancel()
	}()
	tick := time.NewTicker(s.cfg.CompactInterval)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		target := s.rev.Load() - s.cfg.CompactRetain
		if target <= s.compactRev.Load() {
			continue
		}
		err := s.Compact(ctx, target)
		if err != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled) {
			s.log.Error("datastore compaction failed", "rev", target, "err", err)
		}
	}
}
