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

// listAt reads the live keys in [?1, ?2) as of revision ?3, in key order,
// at most ?4 of them, without an index on the log's keys. A key live at ?3
// is either unchanged since (its current row is at or before ?3), or was
// changed after ?3: then the first change after ?3 names the row live at ?3
// as its prev_rev, which is the only change after ?3 whose prev_rev is at
// or before ?3 (later ones name a row after ?3, a create names none, and a
// key that was deleted at ?3 comes back only through a create). Both halves
// are range reads: current by key, the log by revision after ?3, so the
// cost follows the page and the writes since ?3, not the log's size; only
// keys and revisions are sorted, values are read for the page alone.
// Compaction to C <= ?3 keeps every row used: the row live at ?3 was
// superseded after C, and the change after ?3 is newer than C.
const listAt = `SELECT k.key, l.value, l.create_rev, l.rev FROM (
		SELECT key, rev FROM current
			WHERE key >= ?1 AND key < ?2 AND rev <= ?3
		UNION ALL
		SELECT key, prev_rev FROM log
			WHERE rev > ?3 AND prev_rev > 0 AND prev_rev <= ?3 AND key >= ?1 AND key < ?2
		ORDER BY 1 LIMIT ?4
	) k JOIN log l ON l.rev = k.rev ORDER BY k.key`

// readSQL pairs a read statement's destination with its text.
type readSQL struct {
	dst **sql.Stmt
	sql string
}

func (st *readStmts) texts() []readSQL {
	return []readSQL{
		{&st.get, `SELECT l.value, l.create_rev, l.rev FROM current c
			JOIN log l ON l.rev = c.rev WHERE c.key = ?`},
		{&st.listLatest, `SELECT c.key, l.value, l.create_rev, l.rev FROM current c
			JOIN log l ON l.rev = c.rev WHERE c.key >= ?1 AND c.key < ?2 ORDER BY c.key LIMIT ?3`},
		{&st.listAt, listAt},
		{&st.countLatest, `SELECT count(*) FROM current WHERE key >= ?1 AND key < ?2`},
		{&st.replay, `SELECT l.rev, l.key, l.value, l.create_rev, l.deleted, p.rev, p.value
			FROM log l LEFT JOIN log p ON p.rev = l.prev_rev
			WHERE l.rev > ?1 AND l.rev <= ?2 AND l.key >= ?3 AND l.key < ?4
			ORDER BY l.rev LIMIT ?5`},
	}
}

func prepareReads(ctx context.Context, db *sql.DB) (*readStmts, error) {
	st := &readStmts{}
	for _, p := range st.texts() {
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
