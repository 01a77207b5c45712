package datastore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// listQuery is a List request after its options were checked.
type listQuery struct {
	prefix string
	lower  string // first key that may be returned
	upper  any    // keyUpperBound(prefix)
	rev    int64  // 0: the latest
	limit  int64  // 0: no limit
}

func parseListOptions(prefix string, opts ListOptions) (listQuery, error) {
	q := listQuery{prefix: prefix, lower: prefix, upper: keyUpperBound(prefix), rev: opts.Revision, limit: opts.Limit}
	if opts.Limit < 0 {
		return q, fmt.Errorf("limit is %d, want >= 0: %w", opts.Limit, ErrInvalid)
	}
	if opts.Revision < 0 {
		return q, fmt.Errorf("revision is %d, want >= 0: %w", opts.Revision, ErrInvalid)
	}
	if opts.Continue == "" {
		return q, nil
	}
	tok, err := decodeContinue(opts.Continue)
	if err != nil {
		return q, err
	}
	if !strings.HasPrefix(tok.Last, prefix) {
		return q, fmt.Errorf("continue token was issued for another prefix than %q: %w", prefix, ErrInvalid)
	}
	if opts.Revision != 0 && opts.Revision != tok.Rev {
		return q, fmt.Errorf("continue token is at revision %d, the request asks for %d: %w", tok.Rev, opts.Revision, ErrInvalid)
	}
	q.rev = tok.Rev
	q.lower = tok.Last + "\x00" // the smallest key after Last
	return q, nil
}

// List returns the live keys under prefix, in key order, as of
// opts.Revision (the latest when 0). A page that stops early carries a
// Continue token; the next page is read at the same revision.
func (s *SQLite) List(ctx context.Context, prefix string, opts ListOptions) (*ListResult, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	q, err := parseListOptions(prefix, opts)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	defer tx.Rollback()
	res, err := s.listIn(ctx, tx, q)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	return res, nil
}

// listIn runs q inside a read transaction, so revision checks and rows come
// from one snapshot.
func (s *SQLite) listIn(ctx context.Context, tx *sql.Tx, q listQuery) (*ListResult, error) {
	cur, compact, err := readRevisions(ctx, tx)
	if err != nil {
		return nil, err
	}
	latest := q.rev == 0 || q.rev == cur
	if q.rev == 0 {
		q.rev = cur
	}
	if q.rev > cur {
		return nil, fmt.Errorf("revision %d, latest is %d: %w", q.rev, cur, ErrFutureRevision)
	}
	if q.rev < compact {
		return nil, fmt.Errorf("revision %d, compacted up to %d: %w", q.rev, compact, ErrCompacted)
	}
	items, err := s.listRows(ctx, tx, latest, q)
	if err != nil {
		return nil, err
	}
	res := &ListResult{Items: items, Revision: q.rev}
	if q.limit > 0 && int64(len(items)) > q.limit {
		res.Items = items[:q.limit]
		last := res.Items[q.limit-1].Key
		res.Continue = encodeContinue(q.rev, last)
		if latest {
			// Counting at an older revision means probing the log once per
			// remaining key, on every page; Remaining is best effort, so it
			// is only given where the current table makes it cheap.
			res.Remaining, err = s.countAfter(ctx, tx, last+"\x00", q)
		}
	}
	return res, err
}

// listRows reads up to q.limit+1 live keys (the extra one tells whether
// more remain): from the current table at the latest revision, from the
// log otherwise.
func (s *SQLite) listRows(ctx context.Context, tx *sql.Tx, latest bool, q listQuery) ([]*KeyValue, error) {
	fetch := int64(-1) // SQLite: no limit
	if q.limit > 0 {
		fetch = q.limit + 1
	}
	var rows *sql.Rows
	var err error
	if latest {
		rows, err = tx.StmtContext(ctx, s.reads.listLatest).QueryContext(ctx, q.lower, q.upper, fetch)
	} else {
		rows, err = tx.StmtContext(ctx, s.reads.listAt).QueryContext(ctx, q.lower, q.upper, q.rev, fetch)
	}
	if err != nil {
		return nil, err
	}
	return scanKVs(rows)
}

// countAfter counts the live keys from lower on, at the latest revision.
func (s *SQLite) countAfter(ctx context.Context, tx *sql.Tx, lower string, q listQuery) (int64, error) {
	var n int64
	if err := tx.StmtContext(ctx, s.reads.countLatest).QueryRowContext(ctx, lower, q.upper).Scan(&n); err != nil {
		return 0, fmt.Errorf("count remaining: %w", err)
	}
	return n, nil
}
