package datastore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxKeyLen bounds keys; bramble's keys are /registry/<resource>/<ns>/<name>.
const maxKeyLen = 4096

// validateKey rejects keys the store cannot order or page through safely.
func validateKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("key must not be empty: %w", ErrInvalid)
	case len(key) > maxKeyLen:
		return fmt.Errorf("key is %d bytes, longer than %d: %w", len(key), maxKeyLen, ErrInvalid)
	case !utf8.ValidString(key):
		return fmt.Errorf("key %q is not valid UTF-8: %w", key, ErrInvalid)
	case strings.IndexByte(key, 0) >= 0:
		return fmt.Errorf("key %q contains a NUL byte: %w", key, ErrInvalid)
	}
	return nil
}

// Create writes a new key. ErrKeyExists when it is live.
func (s *SQLite) Create(ctx context.Context, key string, value []byte) (int64, error) {
	if err := validateKey(key); err != nil {
		return 0, fmt.Errorf("create: %w", err)
	}
	res := s.submit(ctx, &writeReq{kind: opCreate, key: key, value: bytes.Clone(value)})
	return res.rev, res.err
}

// Update replaces key's value if its ModRevision is still expectRev.
func (s *SQLite) Update(ctx context.Context, key string, value []byte, expectRev int64) (int64, error) {
	if err := validateKey(key); err != nil {
		return 0, fmt.Errorf("update: %w", err)
	}
	res := s.submit(ctx, &writeReq{kind: opUpdate, key: key, value: bytes.Clone(value), expectRev: expectRev})
	return res.rev, res.err
}

// Delete removes key (if its ModRevision is expectRev, unless that is 0)
// and returns its last value.
func (s *SQLite) Delete(ctx context.Context, key string, expectRev int64) (int64, *KeyValue, error) {
	if err := validateKey(key); err != nil {
		return 0, nil, fmt.Errorf("delete: %w", err)
	}
	res := s.submit(ctx, &writeReq{kind: opDelete, key: key, expectRev: expectRev})
	return res.rev, res.prev, res.err
}

// submit queues r for the writer and waits for its answer. Once queued, a
// write is answered even if ctx ends: the caller learns whether it committed.
func (s *SQLite) submit(ctx context.Context, r *writeReq) writeResult {
	if s.closed.Load() {
		return writeResult{err: ErrClosed}
	}
	r.ctx = ctx
	r.res = make(chan writeResult, 1)
	select {
	case s.reqs <- r:
	case <-ctx.Done():
		return writeResult{err: ctx.Err()}
	case <-s.stop:
		return writeResult{err: ErrClosed}
	}
	select {
	case res := <-r.res:
		return res
	case <-s.writerDone:
		select {
		case res := <-r.res:
			return res
		default:
			return writeResult{err: ErrClosed}
		}
	}
}

// Get returns the latest value of key. ErrNotFound when absent or deleted.
func (s *SQLite) Get(ctx context.Context, key string) (*KeyValue, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if err := validateKey(key); err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	// A point read takes microseconds, so it runs without ctx's
	// cancellation: with a cancellable context database/sql starts a
	// goroutine per query to watch it and the driver one per row step.
	kv := &KeyValue{Key: key}
	err := s.reads.get.QueryRowContext(context.WithoutCancel(ctx), key).Scan(&kv.Value, &kv.CreateRevision, &kv.ModRevision)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("get %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	return kv, nil
}
