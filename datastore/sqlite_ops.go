package datastore

import (
	"database/sql/driver"
	"fmt"
)

// writeStmts are the writer's statements, prepared once on its connection
// below database/sql (see rawStmt).
type writeStmts struct {
	begin, commit, rollback *rawStmt
	current, insertLog      *rawStmt
	createCurrent           *rawStmt
	updateCurrent           *rawStmt
	deleteCurrent           *rawStmt
	compactSuperseded       *rawStmt
	compactDeletes          *rawStmt
	setCompactRev           *rawStmt
}

// stmtSQL pairs a statement's destination with its text.
type stmtSQL struct {
	dst **rawStmt
	sql string
}

func (st *writeStmts) texts() []stmtSQL {
	return []stmtSQL{
		{&st.begin, `BEGIN IMMEDIATE`},
		{&st.commit, `COMMIT`},
		{&st.rollback, `ROLLBACK`},
		{&st.current, `SELECT c.rev, c.create_rev, l.value FROM current c
			JOIN log l ON l.rev = c.rev WHERE c.key = ?`},
		{&st.insertLog, `INSERT INTO log (rev, key, create_rev, prev_rev, deleted, value)
			VALUES (?, ?, ?, ?, ?, ?)`},
		// A create claims its key first: no row changed means it is live.
		{&st.createCurrent, `INSERT INTO current (key, rev, create_rev) VALUES (?1, ?2, ?2)
			ON CONFLICT (key) DO NOTHING`},
		{&st.updateCurrent, `UPDATE current SET rev = ? WHERE key = ?`},
		{&st.deleteCurrent, `DELETE FROM current WHERE key = ?`},
		// A row is superseded at or before `to` exactly when some row in
		// (from, to] names it as prev_rev; rows superseded at or before
		// `from` are already gone.
		{&st.compactSuperseded, `DELETE FROM log WHERE rev IN
			(SELECT prev_rev FROM log WHERE rev > ?1 AND rev <= ?2 AND prev_rev > 0)`},
		{&st.compactDeletes, `DELETE FROM log WHERE rev > ?1 AND rev <= ?2 AND deleted = 1`},
		{&st.setCompactRev, `UPDATE meta SET value = ?1 WHERE name = 'compact_rev'`},
	}
}

// prepareWrites prepares the writer's statements on the driver connection
// dc (inside a Raw call on the writer's connection).
func prepareWrites(dc any) (*writeStmts, error) {
	st := &writeStmts{}
	for _, p := range st.texts() {
		stmt, err := prepareRaw(dc, p.sql)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare write statement: %w", err)
		}
		*p.dst = stmt
	}
	return st, nil
}

func (st *writeStmts) close() {
	for _, p := range st.texts() {
		(*p.dst).Close() // nil-safe: those not prepared yet
	}
}

// apply performs one write inside the open transaction at revision rev. It
// sees the effects of the batch's earlier writes because they ran on the
// same transaction.
func (w *writer) apply(r *writeReq, rev int64) (Event, error) {
	switch r.kind {
	case opCreate:
		return w.create(r, rev)
	case opUpdate:
		return w.update(r, rev)
	case opDelete:
		return w.delete(r, rev)
	}
	return Event{}, fmt.Errorf("unknown write kind %d", r.kind)
}

// lookup returns key's live value, or nil when it has none: the row the
// writer remembers (see latestCache), else the driver's copy, read once.
func (w *writer) lookup(key string) (*KeyValue, error) {
	if kv, ok := w.latest.get(key); ok {
		return kv, nil
	}
	row, found, err := w.stmts.current.queryRow(3, key)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	if !found {
		return nil, nil
	}
	modRev, ok1 := row[0].(int64)
	createRev, ok2 := row[1].(int64)
	value, ok3 := blobValue(row[2])
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("read %s: row holds %T, %T, %T; want two integers and a blob", key, row[0], row[1], row[2])
	}
	return &KeyValue{Key: key, Value: value, CreateRevision: createRev, ModRevision: modRev}, nil
}

// blobValue is a value column as bytes; SQLite hands back TEXT for a value
// a foreign writer stored as a string, which Scan into []byte accepted too.
func blobValue(v driver.Value) ([]byte, bool) {
	switch b := v.(type) {
	case []byte:
		return b, true
	case string:
		return []byte(b), true
	}
	return nil, false
}

// create claims the key in current (no lookup: a live key makes the insert
// change nothing), then appends the log row.
func (w *writer) create(r *writeReq, rev int64) (Event, error) {
	n, err := w.stmts.createCurrent.run(r.key, rev)
	if err != nil {
		return Event{}, fmt.Errorf("create %s: %w", r.key, err)
	}
	if n == 0 {
		return Event{}, fmt.Errorf("create %s: %w", r.key, ErrKeyExists)
	}
	if err := w.insertRow(rev, r.key, rev, 0, false, r.value); err != nil {
		return Event{}, err
	}
	kv := &KeyValue{Key: r.key, Value: r.value, CreateRevision: rev, ModRevision: rev}
	w.latest.put(kv)
	return Event{Type: EventCreate, Revision: rev, KV: kv}, nil
}

func (w *writer) update(r *writeReq, rev int64) (Event, error) {
	cur, err := w.lookup(r.key)
	switch {
	case err != nil:
		return Event{}, err
	case cur == nil:
		return Event{}, fmt.Errorf("update %s: %w", r.key, ErrNotFound)
	case cur.ModRevision != r.expectRev:
		return Event{}, fmt.Errorf("update %s at revision %d, latest is %d: %w", r.key, r.expectRev, cur.ModRevision, ErrConflict)
	}
	if err := w.insertRow(rev, r.key, cur.CreateRevision, cur.ModRevision, false, r.value); err != nil {
		return Event{}, err
	}
	if _, err := w.stmts.updateCurrent.run(rev, r.key); err != nil {
		return Event{}, fmt.Errorf("update %s: %w", r.key, err)
	}
	kv := &KeyValue{Key: r.key, Value: r.value, CreateRevision: cur.CreateRevision, ModRevision: rev}
	w.latest.put(kv)
	return Event{Type: EventUpdate, Revision: rev, KV: kv, PrevKV: cur}, nil
}

func (w *writer) delete(r *writeReq, rev int64) (Event, error) {
	cur, err := w.lookup(r.key)
	switch {
	case err != nil:
		return Event{}, err
	case cur == nil:
		return Event{}, fmt.Errorf("delete %s: %w", r.key, ErrNotFound)
	case r.expectRev != 0 && cur.ModRevision != r.expectRev:
		return Event{}, fmt.Errorf("delete %s at revision %d, latest is %d: %w", r.key, r.expectRev, cur.ModRevision, ErrConflict)
	}
	if err := w.insertRow(rev, r.key, cur.CreateRevision, cur.ModRevision, true, cur.Value); err != nil {
		return Event{}, err
	}
	if _, err := w.stmts.deleteCurrent.run(r.key); err != nil {
		return Event{}, fmt.Errorf("delete %s: %w", r.key, err)
	}
	w.latest.forget(r.key)
	kv := &KeyValue{Key: r.key, Value: cur.Value, CreateRevision: cur.CreateRevision, ModRevision: rev}
	return Event{Type: EventDelete, Revision: rev, KV: kv, PrevKV: cur}, nil
}

func (w *writer) insertRow(rev int64, key string, createRev, prevRev int64, deleted bool, value []byte) error {
	if value == nil {
		value = []byte{} // the column is NOT NULL; the driver binds nil as NULL
	}
	if _, err := w.stmts.insertLog.run(rev, key, createRev, prevRev, deleted, value); err != nil {
		return fmt.Errorf("append revision %d for %s: %w", rev, key, err)
	}
	return nil
}
