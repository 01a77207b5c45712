package datastore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// writeStmts are the writer's prepared statements, bound to its connection.
type writeStmts struct {
	current, insertLog, insertCurrent, updateCurrent, deleteCurrent *sql.Stmt
}

func prepareWrites(ctx context.Context, conn *sql.Conn) (*writeStmts, error) {
	st := &writeStmts{}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&st.current, `SELECT c.rev, c.create_rev, l.value FROM current c
			JOIN log l ON l.rev = c.rev WHERE c.key = ?`},
		{&st.insertLog, `INSERT INTO log (rev, key, create_rev, prev_rev, deleted, value)
			VALUES (?, ?, ?, ?, ?, ?)`},
		{&st.insertCurrent, `INSERT INTO current (key, rev, create_rev) VALUES (?, ?, ?)`},
		{&st.updateCurrent, `UPDATE current SET rev = ? WHERE key = ?`},
		{&st.deleteCurrent, `DELETE FROM current WHERE key = ?`},
	} {
		stmt, err := conn.PrepareContext(ctx, p.sql)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare write statement: %w", err)
		}
		*p.dst = stmt
	}
	return st, nil
}

func (st *writeStmts) close() {
	for _, s := range []*sql.Stmt{st.current, st.insertLog, st.insertCurrent, st.updateCurrent, st.deleteCurrent} {
		if s != nil {
			s.Close()
		}
	}
}

// apply performs one write inside the open transaction at revision rev. It
// sees the effects of the batch's earlier writes because they ran on the
// same transaction.
func (w *writer) apply(ctx context.Context, r *writeReq, rev int64) (*Event, error) {
	cur, err := w.lookup(ctx, r.key)
	if err != nil {
		return nil, err
	}
	switch r.kind {
	case opCreate:
		return w.create(ctx, r, rev, cur)
	case opUpdate:
		return w.update(ctx, r, rev, cur)
	case opDelete:
		return w.delete(ctx, r, rev, cur)
	}
	return nil, fmt.Errorf("unknown write kind %d", r.kind)
}

// lookup returns key's live value, or nil when it has none.
func (w *writer) lookup(ctx context.Context, key string) (*KeyValue, error) {
	kv := &KeyValue{Key: key}
	err := w.stmts.current.QueryRowContext(ctx, key).Scan(&kv.ModRevision, &kv.CreateRevision, &kv.Value)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return kv, nil
}

func (w *writer) create(ctx context.Context, r *writeReq, rev int64, cur *KeyValue) (*Event, error) {
	if cur != nil {
		return nil, fmt.Errorf("create %s: %w", r.key, ErrKeyExists)
	}
	if err := w.insertRow(ctx, rev, r.key, rev, 0, false, r.value); err != nil {
		return nil, err
	}
	if _, err := w.stmts.insertCurrent.ExecContext(ctx, r.key, rev, rev); err != nil {
		return nil, fmt.Errorf("create %s: %w", r.key, err)
	}
	kv := &KeyValue{Key: r.key, Value: r.value, CreateRevision: rev, ModRevision: rev}
	return &Event{Type: EventCreate, Revision: rev, KV: kv}, nil
}

func (w *writer) update(ctx context.Context, r *writeReq, rev int64, cur *KeyValue) (*Event, error) {
	if cur == nil {
		return nil, fmt.Errorf("update %s: %w", r.key, ErrNotFound)
	}
	if cur.ModRevision != r.expectRev {
		return nil, fmt.Errorf("update %s at revision %d, latest is %d: %w", r.key, r.expectRev, cur.ModRevision, ErrConflict)
	}
	if err := w.insertRow(ctx, rev, r.key, cur.CreateRevision, cur.ModRevision, false, r.value); err != nil {
		return nil, err
	}
	if _, err := w.stmts.updateCurrent.ExecContext(ctx, rev, r.key); err != nil {
		return nil, fmt.Errorf("update %s: %w", r.key, err)
	}
	kv := &KeyValue{Key: r.key, Value: r.value, CreateRevision: cur.CreateRevision, ModRevision: rev}
	return &Event{Type: EventUpdate, Revision: rev, KV: kv, PrevKV: cur}, nil
}

func (w *writer) delete(ctx context.Context, r *writeReq, rev int64, cur *KeyValue) (*Event, error) {
	if cur == nil {
		return nil, fmt.Errorf("delete %s: %w", r.key, ErrNotFound)
	}
	if r.expectRev != 0 && cur.ModRevision != r.expectRev {
		return nil, fmt.Errorf("delete %s at revision %d, latest is %d: %w", r.key, r.expectRev, cur.ModRevision, ErrConflict)
	}
	if err := w.insertRow(ctx, rev, r.key, cur.CreateRevision, cur.ModRevision, true, cur.Value); err != nil {
		return nil, err
	}
	if _, err := w.stmts.deleteCurrent.ExecContext(ctx, r.key); err != nil {
		return nil, fmt.Errorf("delete %s: %w", r.key, err)
	}
	kv := &KeyValue{Key: r.key, Value: cur.Value, CreateRevision: cur.CreateRevision, ModRevision: rev}
	return &Event{Type: EventDelete, Revision: rev, KV: kv, PrevKV: cur}, nil
}

func (w *writer) insertRow(ctx context.Context, rev int64, key string, createRev, prevRev int64, deleted bool, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	if _, err := w.stmts.insertLog.ExecContext(ctx, rev, key, createRev, prevRev, deleted, value); err != nil {
		return fmt.Errorf("append revision %d for %s: %w", rev, key, err)
	}
	return nil
}
