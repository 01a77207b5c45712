package datastore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

type opKind int

const (
	opCreate opKind = iota + 1
	opUpdate
	opDelete
	opCompact
)

// writeReq is one queued write. The writer answers on res (capacity 1)
// exactly once.
type writeReq struct {
	ctx       context.Context
	kind      opKind
	key       string
	value     []byte
	expectRev int64 // update/delete: the ModRevision the caller saw; compact: the target
	res       chan writeResult
}

type writeResult struct {
	rev  int64
	prev *KeyValue
	err  error
}

// writer is the single goroutine that owns the write connection. It takes
// every request waiting in the queue (up to MaxBatch), applies them in one
// transaction in arrival order, commits once and then answers every caller:
// one fsync for the whole batch.
type writer struct {
	s      *SQLite
	conn   *sql.Conn
	stmts  *writeStmts
	latest *latestCache // the live rows of the keys written last
	rev    int64        // latest committed revision

	lastBatch  int           // writes in the previous batch
	lastCommit time.Duration // how long the previous batch took
}

// maxLinger caps how long the writer waits for a batch to fill.
const maxLinger = 2 * time.Millisecond

func newWriter(ctx context.Context, s *SQLite) (*writer, error) {
	conn, err := s.wdb.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("writer connection: %w", err)
	}
	w := &writer{s: s, conn: conn, latest: newLatestCache(latestCap)}
	err = conn.Raw(func(dc any) error {
		w.stmts, err = prepareWrites(dc)
		return err
	})
	if err != nil {
		conn.Close()
		return nil, err
	}
	cur, compact, err := readRevisions(ctx, conn)
	if err != nil {
		w.close()
		return nil, err
	}
	w.rev = cur
	s.rev.Store(cur)
	s.bc.published = cur // no watcher yet: the store is still opening
	s.compactRev.Store(compact)
	return w, nil
}

func (w *writer) close() {
	w.conn.Raw(func(any) error { // the statements are the connection's
		w.stmts.close()
		return nil
	})
	w.conn.Close()
}

func (w *writer) run() {
	defer close(w.s.writerDone)
	defer w.close()
	batch := make([]*writeReq, 0, w.s.cfg.MaxBatch)
	idle := time.NewTimer(latestIdle)
	defer idle.Stop()
	for {
		select {
		case <-w.s.stop:
			w.failQueued()
			return
		case <-idle.C:
			w.latest.reset()
			continue
		case r := <-w.s.reqs:
			batch = append(batch[:0], r)
		}
		batch = w.linger(w.collect(batch))
		w.process(batch)
		idle.Reset(latestIdle)
	}
}

// linger waits briefly for the callers of the previous batch to come back.
// Right after a commit only the fastest have queued their next write;
// committing those alone would split one group into two commits, each
// paying the fsync. It waits only while fewer writes are queued than the
// previous batch had, and at most a quarter of that batch's commit time
// (capped at maxLinger), so a lone writer never waits.
func (w *writer) linger(batch []*writeReq) []*writeReq {
	if len(batch) >= w.lastBatch || len(batch) == cap(batch) {
		return batch
	}
	wait := min(w.lastCommit/4, maxLinger)
	if wait <= 0 {
		return batch
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for len(batch) < w.lastBatch && len(batch) < cap(batch) {
		select {
		case r := <-w.s.reqs:
			batch = append(batch, r)
		case <-timer.C:
			return batch
		case <-w.s.stop:
			return batch
		}
	}
	return batch
}

// collect adds the requests already waiting, without blocking.
func (w *writer) collect(batch []*writeReq) []*writeReq {
	for len(batch) < cap(batch) {
		select {
		case r := <-w.s.reqs:
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

// process applies a batch: runs of writes share one transaction; a compact
// request gets a transaction of its own, in its place in the order.
func (w *writer) process(batch []*writeReq) {
	start := 0
	for i, r := range batch {
		if r.kind != opCompact {
			continue
		}
		w.commitWrites(batch[start:i])
		r.res <- w.compactStep(r)
		start = i + 1
	}
	w.commitWrites(batch[start:])
}

func (w *writer) failQueued() {
	for {
		select {
		case r := <-w.s.reqs:
			r.res <- writeResult{err: ErrClosed}
		default:
			return
		}
	}
}
