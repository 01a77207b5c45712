package datastore

import (
	"context"
	"database/sql"
	"fmt"
)

// readStmts are prepared once on the read pool. Key ranges are [lower,
// upper); see keyUpperBound.
type readStmts struct {
	get         *sql.Stmt
	listLatest  *sql.Stmt
	listAt      *sql.Stmt
	countLatest *sql.Stmt
	replay      *sql.Stmt
}

// liveAt selects, for every key in range, its newest row at or before a
// revision, if that row is not a delete: the state as of that revision.
const liveAt = `FROM log l WHERE l.key >= ?1 AND l.key < ?2 AND l.rev <= ?3 AND l.deleted = 0
	AND NOT EXISTS (SELECT 1 FROM log n WHERE n.key = l.key AND n.rev > l.rev AND n.rev <= ?3)`

func prepareReads(ctx context.Context, db *sql.DB) (*readStmts, error) {
	st := &readStmts{}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&st.get, `SELECT l.value, l.create_rev, l.rev FROM current c
			JOIN log l ON l.rev = c.rev WHERE c.key = ?`},
		{&st.listLatest, `SELECT c.key, l.value, l.create_rev, l.rev FROM current c
			JOIN log l ON l.rev = c.rev WHERE c.key >= ?1 AND c.key < ?2 ORDER BY c.key LIMIT ?3`},
		{&st.listAt, `SELECT l.key, l.value, l.create_rev, l.rev ` + liveAt + ` ORDER BY l.key LIMIT ?4`},
		{&st.countLatest, `SELECT count(*) FROM current WHERE key >= ?1 AND key < ?2`},
		{&st.replay, `SELECT l.rev, l.key, l.value, l.create_rev, l.deleted, p.rev, p.value
			FROM log l LEFT JOIN log p ON p.rev = l.prev_rev
			WHERE l.rev > ?1 AND l.rev <= ?2 AND l.key >= ?3 AND l.key < ?4
			ORDER BY l.rev LIMIT ?5`},
	} {
		stmt, err := db.PrepareContext(ctx, p.sql)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare read statement: %w", err)
		}
		*p.dst = stmt
	}
	return st, nil
}

func (st *readStmts) close() {
	for _, s := range []*sql.Stmt{st.get, st.listLatest, st.listAt, st.countLatest, st.replay} {
		if s != nil {
			s.Close()
		}
	}
}

// keyUpperBound returns the smallest value above every key that starts with
// prefix, as a query argument. SQLite orders every TEXT value before every
// BLOB, so when no string bound exists (an empty prefix, or one made only of
// 0xff bytes) a one-byte BLOB bounds all keys.
func keyUpperBound(prefix string) any {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] < 0xff {
			return prefix[:i] + string([]byte{prefix[i] + 1})
		}
	}
	return []byte{0xff}
}

// scanKVs reads rows of (key, value, create_rev, rev).
func scanKVs(rows *sql.Rows) ([]*KeyValue, error) {
	defer rows.Close()
	var out []*KeyValue
	for rows.Next() {
		kv := &KeyValue{}
		if err := rows.Scan(&kv.Key, &kv.Value, &kv.CreateRevision, &kv.ModRevision); err != nil {
			return nil, err
		}
		out = append(out, kv)
	}
	return out, rows.Err()
}
