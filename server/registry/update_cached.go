package registry

import (
	"context"
	"errors"
	"strconv"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// mutateCached tries m on the shared cache's object, with no read of the
// store, as bindCached does for bindings: the cache's object (read, never
// changed: desired copies it) is mutated, admitted and encoded, and
// written only if the stored object is still at the revision the cache
// decoded. It reports whether it settled the write. Everything it cannot
// settle from the cache alone goes to the read-modify-write path, which
// answers from the stored object as before: a dry run (it writes nothing,
// so no revision check would vouch for the cache), an object the cache
// lacks, any error before the write (a stale resourceVersion precondition,
// a refusal by admission: they are judged again against the stored
// object, so a 409 or 422 comes from the same code), a write that may
// change nothing (its answer is the stored object, unwritten), and a
// write that conflicts or finds the object gone.
//
// "May change nothing": this registry remembers a fingerprint of each
// value it wrote (writeSums); the write goes ahead only when the cache's
// revision is one of those and the new encoding's fingerprint differs.
func (r *Registry) mutateCached(ctx context.Context, m *Mutation, admit func(next, cur api.Object) error) (api.Object, bool, error) {
	if m.DryRun {
		return nil, false, nil
	}
	key := m.Resource.Key(m.Namespace, m.Name)
	cur, rev := r.cachedShared(m.Resource, m.Namespace, m.Name)
	if cur == nil || !r.sums.known(key, rev) {
		return nil, false, nil
	}
	next, release, err := r.prepare(ctx, m, admit, cur)
	if err != nil {
		return nil, false, nil
	}
	data, err := encodeStored(next)
	if err != nil || !r.sums.differs(key, rev, data) {
		release(false)
		return nil, false, nil
	}
	offered := r.offer(m.Resource, key, data, next)
	newRev, err := r.store.Update(ctx, key, data, rev)
	offered.Written(newRev, err)
	release(err == nil)
	switch {
	case errors.Is(err, datastore.ErrConflict) || errors.Is(err, datastore.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, true, StoreError(err, m.Resource, m.Name)
	}
	out, err := r.updated(ctx, m, next, key, rev, newRev, data)
	guardAnswer(out, cur)
	return out, true, err
}

// cachedShared is the shared cache's object ns/name of res, which must not
// be changed, and the revision it was decoded from; nil when the cache
// does not serve res or lacks the object.
func (r *Registry) cachedShared(res *api.Resource, ns, name string) (api.Object, int64) {
	if r.cache == nil {
		return nil, 0
	}
	inf, ok := r.cache.Serves(res)
	if !ok {
		return nil, 0
	}
	obj, ok := inf.Get(ns, name)
	if !ok {
		return nil, 0
	}
	rev, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		return nil, 0
	}
	return obj, rev
}

// loadShared is load for Mutate, which only reads the current object: the
// cache's own object when it holds the stored revision, not a copy.
func (r *Registry) loadShared(ctx context.Context, res *api.Resource, ns, name string) (api.Object, *datastore.KeyValue, error) {
	kv, err := r.store.Get(ctx, res.Key(ns, name))
	if err != nil {
		return nil, nil, StoreError(err, res, name)
	}
	if obj, rev := r.cachedShared(res, ns, name); obj != nil && rev == kv.ModRevision {
		return obj, kv, nil
	}
	obj, err := decodeStored(res, kv)
	if err != nil {
		return nil, nil, err
	}
	return obj, kv, nil
}
