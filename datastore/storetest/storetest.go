// Package storetest is the conformance suite every datastore backend passes:
// the SQLite backend's tests call Run, and so will PostgreSQL's.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// OpenFunc opens a fresh, empty store. It registers its own cleanup (closing
// the store must be safe to repeat: the suite closes some stores itself).
type OpenFunc func(t testing.TB) datastore.Store

// RestoreFunc opens a new store from the bytes a Store.Snapshot wrote.
type RestoreFunc func(t testing.TB, snapshot []byte) datastore.Store

// Option adjusts Run.
type Option func(*suite)

// WithRestore lets the suite round-trip snapshots. Without it the snapshot
// test fails: every backend must prove its snapshots restore.
func WithRestore(restore RestoreFunc) Option {
	return func(s *suite) { s.restore = restore }
}

type suite struct {
	open    OpenFunc
	restore RestoreFunc
}

// Run runs the conformance suite against stores from open.
func Run(t *testing.T, open func(t testing.TB) datastore.Store, opts ...Option) {
	s := &suite{open: open}
	for _, o := range opts {
		o(s)
	}
	tests := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"CreateGet", s.testCreateGet},
		{"Update", s.testUpdate},
		{"Delete", s.testDelete},
		{"RevisionsContiguous", s.testRevisionsContiguous},
		{"InvalidKeys", s.testInvalidKeys},
		{"Closed", s.testClosed},
		{"ListPrefix", s.testListPrefix},
		{"ListPaging", s.testListPaging},
		{"ListPagingAcrossWrites", s.testListPagingAcrossWrites},
		{"ListAtRevision", s.testListAtRevision},
		{"ListBadInput", s.testListBadInput},
		{"WatchReplayAndLive", s.testWatchReplayAndLive},
		{"WatchPrefixes", s.testWatchPrefixes},
		{"WatchCancel", s.testWatchCancel},
		{"WatchFuture", s.testWatchFuture},
		{"WatchProgress", s.testWatchProgress},
		{"WatchWhileWriting", s.testWatchWhileWriting},
		{"Compact", s.testCompact},
		{"CompactAll", s.testCompactAll},
		{"CompactDeletedLast", s.testCompactDeletedLast},
		{"CompactErrors", s.testCompactErrors},
		{"SnapshotRoundTrip", s.testSnapshotRoundTrip},
		{"ConcurrentWriters", s.testConcurrentWriters},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t)
		})
	}
}

// ctxFor bounds each test's store calls, so a hung store fails instead of
// stalling the whole run.
func ctxFor(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustCreate(t testing.TB, st datastore.Store, key, value string) int64 {
	t.Helper()
	rev, err := st.Create(ctxFor(t), key, []byte(value))
	if err != nil {
		t.Fatalf("Create(%q): %v", key, err)
	}
	return rev
}

func mustUpdate(t testing.TB, st datastore.Store, key, value string, expect int64) int64 {
	t.Helper()
	rev, err := st.Update(ctxFor(t), key, []byte(value), expect)
	if err != nil {
		t.Fatalf("Update(%q, rev %d): %v", key, expect, err)
	}
	return rev
}

func mustDelete(t testing.TB, st datastore.Store, key string, expect int64) int64 {
	t.Helper()
	rev, _, err := st.Delete(ctxFor(t), key, expect)
	if err != nil {
		t.Fatalf("Delete(%q, rev %d): %v", key, expect, err)
	}
	return rev
}

func mustCurrent(t testing.TB, st datastore.Store) int64 {
	t.Helper()
	rev, err := st.CurrentRevision(ctxFor(t))
	if err != nil {
		t.Fatalf("CurrentRevision: %v", err)
	}
	return rev
}

func wantErr(t testing.TB, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) {
		t.Fatalf("%s: got error %v, want %v", what, got, want)
	}
}

// checkKV compares a KeyValue with what it should hold.
func checkKV(t testing.TB, what string, got *datastore.KeyValue, key, value string, createRev, modRev int64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got nil KeyValue, want %s=%q", what, key, value)
	}
	if got.Key != key || !bytes.Equal(got.Value, []byte(value)) || got.CreateRevision != createRev || got.ModRevision != modRev {
		t.Fatalf("%s: got %s, want %s", what, fmtKV(got), fmtKV(&datastore.KeyValue{
			Key: key, Value: []byte(value), CreateRevision: createRev, ModRevision: modRev}))
	}
}

func fmtKV(kv *datastore.KeyValue) string {
	if kv == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{%s=%q create=%d mod=%d}", kv.Key, kv.Value, kv.CreateRevision, kv.ModRevision)
}
