package datastore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// rawStmt is one of the writer's statements, prepared on the driver's
// connection below database/sql. The writer is the only user of its
// connection and runs a whole transaction inside one sql.Conn.Raw call, so
// database/sql's per-call work (taking the connection, converting every
// argument, copying every []byte it scans) buys nothing there; without it
// a write makes 20-30 fewer allocations (BenchmarkWriteCost).
//
// A rawStmt may be used only inside a Raw call on the sql.Conn it was
// prepared on. Raw's callback must not keep the driver connection; the
// statements outlive the callback, which is sound because the writer's
// sql.Conn pins one driver connection for its whole life and every use
// happens while Raw holds it.
type rawStmt struct {
	exec  driver.StmtExecContext
	query driver.StmtQueryContext
	close io.Closer
	args  []driver.NamedValue // reused: one caller at a time
	dest  []driver.Value      // reused: the row queryRow scans
}

// prepareRaw prepares query on the driver connection dc (what Raw hands
// its callback).
func prepareRaw(dc any, query string) (*rawStmt, error) {
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("driver connection %T cannot prepare statements", dc)
	}
	ds, err := pc.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, err
	}
	ex, okExec := ds.(driver.StmtExecContext)
	q, okQuery := ds.(driver.StmtQueryContext)
	if !okExec || !okQuery {
		ds.Close()
		return nil, fmt.Errorf("driver statement %T lacks ExecContext or QueryContext", ds)
	}
	return &rawStmt{exec: ex, query: q, close: ds}, nil
}

// bind sets the statement's arguments: int64, bool, string, []byte (a nil
// []byte is NULL) or nil, the types the driver binds as they are.
func (s *rawStmt) bind(args []any) []driver.NamedValue {
	s.args = s.args[:0]
	for i, a := range args {
		s.args = append(s.args, driver.NamedValue{Ordinal: i + 1, Value: a})
	}
	return s.args
}

// run executes the statement and returns how many rows it changed.
func (s *rawStmt) run(args ...any) (int64, error) {
	res, err := s.exec.ExecContext(context.Background(), s.bind(args))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// queryRow runs the statement and returns its first row's n columns, or
// found false when it has none. The slice is reused by the next call; the
// []byte values in it are the driver's own copies (go-sqlite3 copies each
// BLOB out of SQLite into new Go memory), so the caller may keep those.
func (s *rawStmt) queryRow(n int, args ...any) (row []driver.Value, found bool, err error) {
	rows, err := s.query.QueryContext(context.Background(), s.bind(args))
	if err != nil {
		return nil, false, err
	}
	if cap(s.dest) < n {
		s.dest = make([]driver.Value, n)
	}
	s.dest = s.dest[:n]
	clear(s.dest)
	err = rows.Next(s.dest)
	cerr := rows.Close()
	switch {
	case errors.Is(err, io.EOF):
		return nil, false, cerr
	case err != nil:
		return nil, false, err
	case cerr != nil:
		return nil, false, cerr
	}
	return s.dest, true, nil
}

func (s *rawStmt) Close() error {
	if s == nil {
		return nil
	}
	return s.close.Close()
}
