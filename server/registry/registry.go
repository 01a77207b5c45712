// Package registry is the one place where bramble's API objects are
// created, updated (spec and status), patched, applied, deleted, bound and
// read. Every writer goes through it: the HTTP API (server/apiserver), the
// controllers, the scheduler's binder, node status, join and the token and
// user commands. Each write is admitted the same way whoever makes it:
// server-set metadata, defaulting, the kind's strategy, validation,
// generation, finalizers and deletion propagation, field ownership for
// server-side apply, and dry run.
//
// The kinds it serves are rows (kinds.go): the built-in ones from the api
// package, and kinds added while the server runs, which are served as
// unstructured objects through the same code.
package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// DefaultMaxObjectBytes caps the encoded size of a patched object when
// Config.MaxObjectBytes is 0; it matches the API's request body limit.
const DefaultMaxObjectBytes = 3 << 20

// Config wires a Registry. Store is required; zero values of the rest get
// defaults.
type Config struct {
	Store datastore.Store
	Log   *slog.Logger
	Now   func() time.Time
	// MaxObjectBytes caps what a patch may grow an object to (default 3 MiB).
	MaxObjectBytes int64
	// Cache, when set, is the process's shared informer cache: lists it can
	// answer as freshly as the datastore are answered from memory.
	Cache *informer.Cache
}

// Registry admits and stores objects for every caller.
type Registry struct {
	// store is the datastore as given, with namespace writes noted in
	// nsRev (nsWrites); raw is the datastore as given, for Store().
	store    datastore.Store
	raw      datastore.Store
	nsRev    atomic.Int64
	log      *slog.Logger
	now      func() time.Time
	maxBytes int64
	kinds    *Kinds
	cache    *informer.Cache
	// waitBound bounds the waits for the cache (awaitCache).
	waitBound waitBound
	// sums fingerprints what this registry wrote, for mutateCached.
	sums *writeSums

	admitters []Admitter

	fieldManagersMu sync.Mutex
	fieldManagers   map[string]fieldManagerEntry
	converters      typeConverters
}

// New checks cfg and creates the namespaces every cluster has (default,
// kube-system, kube-public, kube-node-lease) when they are missing.
func New(ctx context.Context, cfg Config) (*Registry, error) {
	if cfg.Store == nil {
		return nil, errors.New("new registry: Store is required")
	}
	r := &Registry{raw: cfg.Store, log: cfg.Log, now: cfg.Now, maxBytes: cfg.MaxObjectBytes,
		kinds: newKinds(), cache: cfg.Cache, sums: newWriteSums(), fieldManagers: map[string]fieldManagerEntry{}}
	r.store = newNSWrites(cfg.Store, &r.nsRev)
	start, err := cfg.Store.CurrentRevision(ctx)
	if err != nil {
		return nil, fmt.Errorf("new registry: %w", err)
	}
	r.nsRev.Store(start) // the cache must have applied what was written before this process
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.maxBytes <= 0 {
		r.maxBytes = DefaultMaxObjectBytes
	}
	if err := r.ensureNamespaces(ctx, SystemNamespaces); err != nil {
		return nil, fmt.Errorf("new registry: %w", err)
	}
	r.Use(crdAdmitter{r})
	if err := r.serveStoredCRDs(ctx); err != nil {
		return nil, fmt.Errorf("new registry: %w", err)
	}
	if r.cache != nil {
		r.followCRDs(ctx)
	}
	return r, nil
}

// Store is the datastore the registry writes to (watches read it directly).
func (r *Registry) Store() datastore.Store { return r.raw }

// Now is the registry's clock.
func (r *Registry) Now() time.Time { return r.now() }

// Cache is the shared informer cache the registry lists from; nil without.
func (r *Registry) Cache() *informer.Cache { return r.cache }

// Kinds is the set of served kinds.
func (r *Registry) Kinds() *Kinds { return r.kinds }
