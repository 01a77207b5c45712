package datastore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bramble-edge/bramble/metrics"
)

// commitWrites applies reqs in one transaction and answers each caller after
// COMMIT returned. An op that fails its check (exists, conflict, not found)
// fails only its caller and uses no revision; any other error fails the batch.
func (w *writer) commitWrites(reqs []*writeReq) {
	if len(reqs) == 0 {
		return
	}
	start := time.Now()
	defer func() { w.lastBatch, w.lastCommit = len(reqs), time.Since(start) }()
	results := make([]writeResult, len(reqs))
	var events []Event
	err := w.inTx(func() error {
		var err error
		if events, err = w.applyAll(reqs, results); err != nil {
			return err
		}
		if len(events) > 0 && w.s.cfg.CommitHook != nil {
			w.s.cfg.CommitHook()
		}
		return nil
	})
	if err != nil {
		w.failBatch(results, w.s.translateNoSpace(err))
	} else if len(events) > 0 {
		w.s.wroteOK()
		w.rev = events[len(events)-1].Revision
		w.s.rev.Store(w.rev)
		w.s.bc.publish(events)
		metrics.StoreBatchSize.Observe(float64(len(reqs)))
		metrics.StoreRevision.Set(float64(w.rev))
	}
	for i, r := range reqs {
		r.res <- results[i]
	}
}

// applyAll runs every request in order, giving each successful one the next
// revision, and returns their events. A statement error aborts the batch.
func (w *writer) applyAll(reqs []*writeReq, results []writeResult) ([]Event, error) {
	events := make([]Event, 0, len(reqs))
	next := w.rev + 1
	for i, r := range reqs {
		if err := r.ctx.Err(); err != nil {
			results[i].err = err
			continue
		}
		ev, err := w.apply(r, next)
		countWrite(r.kind, err)
		switch {
		case isCheckError(err):
			results[i].err = err
		case err != nil:
			return nil, err
		default:
			results[i] = writeResult{rev: next, prev: ev.PrevKV}
			events = append(events, ev)
			next++
		}
	}
	return events, nil
}

// failBatch gives every caller the batch's error (the transaction rolled
// back, so none of its writes happened) and re-reads the revision, so the
// next batch continues from what the database holds.
func (w *writer) failBatch(results []writeResult, err error) {
	w.latest.reset() // it holds rows of the writes that rolled back
	err = fmt.Errorf("write batch: %w", err)
	for i := range results {
		results[i] = writeResult{err: err}
	}
	if cur, _, rerr := readRevisions(context.Background(), w.conn); rerr == nil {
		w.rev = cur
		w.s.rev.Store(cur)
	}
}

func isCheckError(err error) bool {
	return errors.Is(err, ErrKeyExists) || errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound)
}

// inTx runs fn inside BEGIN IMMEDIATE ... COMMIT on the write connection,
// holding it below database/sql for the whole transaction (see rawStmt).
// Callers' contexts do not reach the statements: they must not abort a
// shared commit.
func (w *writer) inTx(fn func() error) error {
	return w.conn.Raw(func(any) error {
		if _, err := w.stmts.begin.run(); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		if err := fn(); err != nil {
			w.rollback()
			return err
		}
		start := time.Now()
		_, err := w.stmts.commit.run()
		metrics.StoreCommit.Observe(time.Since(start).Seconds())
		if err != nil {
			w.rollback()
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	})
}

func (w *writer) rollback() {
	if _, err := w.stmts.rollback.run(); err != nil {
		w.s.log.Debug("datastore rollback", "err", err)
	}
}
