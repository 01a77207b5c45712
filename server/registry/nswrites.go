package registry

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/bramble-edge/bramble/datastore"
)

// nsWrites is the registry's datastore with a note of the revision of the
// last namespace write made through it. Every namespace write of a
// running server is the registry's, so a shared cache that has applied
// that revision knows every namespace as the datastore does: a create's
// namespace check can then be answered from the cache however far behind
// it is on other kinds (cachedNamespace). With several servers on one
// datastore (HA, not built yet) another server's namespace writes are
// not noted here, and the check must follow the namespaces' watch instead.
type nsWrites struct {
	datastore.Store
	prefix string
	last   *atomic.Int64
}

func newNSWrites(s datastore.Store, last *atomic.Int64) nsWrites {
	return nsWrites{Store: s, prefix: namespacesResource.Prefix(""), last: last}
}

func (s nsWrites) note(key string, rev int64, err error) {
	if err != nil || !strings.HasPrefix(key, s.prefix) {
		return
	}
	for {
		cur := s.last.Load()
		if rev <= cur || s.last.CompareAndSwap(cur, rev) {
			return
		}
	}
}

func (s nsWrites) Create(ctx context.Context, key string, value []byte) (int64, error) {
	rev, err := s.Store.Create(ctx, key, value)
	s.note(key, rev, err)
	return rev, err
}

func (s nsWrites) Update(ctx context.Context, key string, value []byte, expectRev int64) (int64, error) {
	rev, err := s.Store.Update(ctx, key, value, expectRev)
	s.note(key, rev, err)
	return rev, err
}

func (s nsWrites) Delete(ctx context.Context, key string, expectRev int64) (int64, *datastore.KeyValue, error) {
	rev, prev, err := s.Store.Delete(ctx, key, expectRev)
	s.note(key, rev, err)
	return rev, prev, err
}
