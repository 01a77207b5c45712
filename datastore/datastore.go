// Package datastore is bramble's revisioned key-value store: an append-only
// log of changes in the kine model. Every committed write gets the next global
// revision; reads see the latest revision unless asked for an older one; an
// update succeeds only when the caller's revision still matches; watches
// deliver every later change in order, or say the revision was compacted.
//
// Backends (SQLite today, PostgreSQL later) implement Store and pass the one
// conformance suite in package datastore/storetest.
package datastore

import (
	"context"
	"errors"
	"io"
)

// Errors a Store returns. Backends translate driver errors into these at the
// boundary so callers can match them with errors.Is.
var (
	// ErrNotFound: the key does not exist (or is deleted) at the revision read.
	ErrNotFound = errors.New("datastore: key not found")
	// ErrKeyExists: Create found a live key.
	ErrKeyExists = errors.New("datastore: key already exists")
	// ErrConflict: Update or Delete was given a revision that is no longer the
	// key's latest.
	ErrConflict = errors.New("datastore: revision conflict")
	// ErrCompacted: the revision asked for is older than the compaction point.
	ErrCompacted = errors.New("datastore: revision compacted")
	// ErrFutureRevision: the revision asked for has not been written yet.
	ErrFutureRevision = errors.New("datastore: revision not yet written")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("datastore: closed")
	// ErrInvalid: the caller passed something malformed (an empty key, a
	// negative limit, a continue token that does not decode). The message
	// says what; an API server answers 400.
	ErrInvalid = errors.New("datastore: invalid argument")
	// ErrNoSpace: the disk (or filesystem) holding the datastore is full;
	// nothing was written. Writes succeed again once space is freed.
	ErrNoSpace = errors.New("datastore: no space left on device")
)

// KeyValue is one key's value as of ModRevision.
type KeyValue struct {
	Key            string
	Value          []byte
	CreateRevision int64 // revision of the create that started this key's life
	ModRevision    int64 // revision of the last write to it
}

// EventType says what happened to a key.
type EventType int

const (
	EventCreate EventType = iota + 1
	EventUpdate
	EventDelete
	// EventProgress is no change: only a watch opened with WatchProgress
	// delivers it, alone in its batch, with KV nil. Its Revision says that
	// every event under the watch's prefix up to it has been delivered.
	EventProgress
)

func (t EventType) String() string {
	switch t {
	case EventCreate:
		return "create"
	case EventUpdate:
		return "update"
	case EventDelete:
		return "delete"
	case EventProgress:
		return "progress"
	}
	return "unknown"
}

// Event is one committed change. Revision == KV.ModRevision. For a delete, KV
// holds the key's last value (before the delete) with ModRevision set to the
// delete's revision; PrevKV is the value before the change (nil on create).
type Event struct {
	Type     EventType
	Revision int64
	KV       *KeyValue
	PrevKV   *KeyValue
}

// ListOptions narrows a List.
type ListOptions struct {
	// Revision reads the state as of this revision; 0 means the latest.
	// A revision older than the compaction point gives ErrCompacted.
	Revision int64
	// Limit caps the number of items; 0 means no limit.
	Limit int64
	// Continue is the token from a previous ListResult; the list resumes after
	// the last key returned, at the same revision.
	Continue string
}

// ListResult is a page of keys, in key order.
type ListResult struct {
	Items []*KeyValue
	// Revision is the revision the list was read at.
	Revision int64
	// Continue is non-empty when more keys remain.
	Continue string
	// Remaining counts keys after this page (best effort, 0 when unknown).
	Remaining int64
}

// Store is what bramble needs of a backend.
type Store interface {
	// Create writes a new key. ErrKeyExists when it is live.
	Create(ctx context.Context, key string, value []byte) (rev int64, err error)
	// Get returns the latest value of key. ErrNotFound when absent or deleted.
	Get(ctx context.Context, key string) (*KeyValue, error)
	// List returns the live keys under prefix, in key order.
	List(ctx context.Context, prefix string, opts ListOptions) (*ListResult, error)
	// Update replaces key's value if its ModRevision is still expectRev
	// (ErrConflict otherwise, ErrNotFound if it does not exist).
	Update(ctx context.Context, key string, value []byte, expectRev int64) (rev int64, err error)
	// Delete removes key. expectRev 0 deletes whatever is there; otherwise
	// the key's ModRevision must match (ErrConflict). Returns the last value.
	Delete(ctx context.Context, key string, expectRev int64) (rev int64, prev *KeyValue, err error)
	// Watch delivers, in revision order, every event under prefix with a
	// revision > afterRev, until ctx ends or the watcher falls too far behind
	// (the channel is then closed; resume from the last revision seen).
	// ErrCompacted when afterRev is older than the compaction point.
	// Events (and their KeyValues) may be shared between watchers: treat
	// them as read-only.
	Watch(ctx context.Context, prefix string, afterRev int64) (<-chan []Event, error)
	// WatchProgress is Watch that also answers progress requests: for each
	// value received on requests it delivers a batch of one EventProgress
	// event at a revision R, at least the latest committed when the request
	// arrived, once every event under prefix up to R has been delivered
	// (none is sent while R would not pass afterRev). An API server builds
	// its watch bookmarks on it.
	WatchProgress(ctx context.Context, prefix string, afterRev int64, requests <-chan struct{}) (<-chan []Event, error)
	// CurrentRevision is the latest committed revision.
	CurrentRevision(ctx context.Context) (int64, error)
	// CompactRevision is the oldest revision still readable (0 when nothing
	// has been compacted).
	CompactRevision(ctx context.Context) (int64, error)
	// Compact drops history older than rev (values superseded before rev and
	// deleted keys); reads and watches before rev then give ErrCompacted.
	Compact(ctx context.Context, rev int64) error
	// Snapshot writes a consistent copy of the whole store to w while it
	// keeps serving.
	Snapshot(ctx context.Context, w io.Writer) error
	Close() error
}
