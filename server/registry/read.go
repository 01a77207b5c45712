package registry

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Get reads one object. A missing object is a 404 Status error.
func (r *Registry) Get(ctx context.Context, res *api.Resource, ns, name string) (api.Object, error) {
	obj, _, err := r.load(ctx, res, ns, name)
	return obj, err
}

// List reads the objects of res in ns ("" for all namespaces) that pass
// the selectors, from the shared cache when it can answer as freshly as
// the datastore (listFromCache; its objects are read-only), otherwise from
// the datastore. With a limit it reads pages until it has at least limit
// matches or the collection ends, so a page may hold up to 2*limit-1 items.
func (r *Registry) List(ctx context.Context, res *api.Resource, ns string, lo ListOptions) (*List, error) {
	if l, ok := r.listFromCache(ctx, res, ns, &lo); ok {
		return l, nil
	}
	return r.listStored(ctx, res, ns, &lo)
}

// ListItems is List's items alone, for admission's reads of policy
// objects on every create: from the shared cache it makes neither a List
// nor its resourceVersion. The objects are the cache's: read-only.
func (r *Registry) ListItems(ctx context.Context, res *api.Resource, ns string, lo ListOptions) ([]api.Object, error) {
	if items, _, ok := r.itemsFromCache(ctx, res, ns, &lo); ok {
		return items, nil
	}
	l, err := r.listStored(ctx, res, ns, &lo)
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// listStored is List read from the datastore.
func (r *Registry) listStored(ctx context.Context, res *api.Resource, ns string, lo *ListOptions) (*List, error) {
	opts := datastore.ListOptions{Limit: lo.Limit, Continue: lo.Continue}
	if lo.ResourceVersionMatch == string(metav1.ResourceVersionMatchExact) {
		opts.Revision = lo.ResourceVersion
	}
	out := &List{}
	for first := true; ; first = false {
		page, err := r.store.List(ctx, res.Prefix(ns), opts)
		if err != nil {
			return nil, r.listError(ctx, err, lo)
		}
		if first && lo.ResourceVersion > page.Revision {
			return nil, TooLargeResourceVersion(lo.ResourceVersion, page.Revision)
		}
		if out.Items, err = appendSelected(out.Items, res, page.Items, lo); err != nil {
			return nil, err
		}
		if page.Continue == "" || lo.Limit == 0 || int64(len(out.Items)) >= lo.Limit {
			out.ResourceVersion, out.Continue = FormatResourceVersion(page.Revision), page.Continue
			if !lo.Filtered() {
				out.Remaining = page.Remaining
			}
			return out, nil
		}
		opts.Continue, opts.Revision = page.Continue, 0
	}
}

// appendSelected decodes kvs and appends those that pass the selectors.
func appendSelected(out []api.Object, res *api.Resource, kvs []*datastore.KeyValue, lo *ListOptions) ([]api.Object, error) {
	for _, kv := range kvs {
		obj, err := decodeStored(res, kv)
		if err != nil {
			return nil, err
		}
		if lo.Selects(res, obj) {
			out = append(out, obj)
		}
	}
	return out, nil
}

// listError explains a failed list: a compacted revision or stale continue
// token is 410, a revision from the future 504, a bad token 400.
func (r *Registry) listError(ctx context.Context, err error, lo *ListOptions) error {
	switch {
	case errors.Is(err, datastore.ErrCompacted) && lo.Continue != "":
		return apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. " +
			"You can start a new list without the continue parameter.")
	case errors.Is(err, datastore.ErrCompacted):
		return apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")
	case errors.Is(err, datastore.ErrFutureRevision):
		cur, _ := r.store.CurrentRevision(ctx)
		return TooLargeResourceVersion(lo.ResourceVersion, cur)
	case errors.Is(err, datastore.ErrClosed), errors.Is(err, context.Canceled):
		return StoreError(err, nil, "")
	case lo.Continue != "":
		return BadRequest("continue %q: not a valid continue token: %v", lo.Continue, err)
	}
	return StoreError(err, nil, "")
}

// load reads one object and its stored form. A missing object is a 404
// Status error.
func (r *Registry) load(ctx context.Context, res *api.Resource, ns, name string) (api.Object, *datastore.KeyValue, error) {
	kv, err := r.store.Get(ctx, res.Key(ns, name))
	if err != nil {
		return nil, nil, StoreError(err, res, name)
	}
	if obj := r.cachedCopy(res, ns, name, kv.ModRevision); obj != nil {
		return obj, kv, nil
	}
	obj, err := decodeStored(res, kv)
	if err != nil {
		return nil, nil, err
	}
	return obj, kv, nil
}

// DecodeStored turns a stored value of res into an object whose
// resourceVersion is the value's revision.
func DecodeStored(res *api.Resource, kv *datastore.KeyValue) (api.Object, error) {
	return decodeStored(res, kv)
}

func decodeStored(res *api.Resource, kv *datastore.KeyValue) (api.Object, error) {
	obj, err := api.DecodeStored(res, kv.Value, kv.ModRevision)
	if err != nil {
		return nil, fmt.Errorf("stored object %s: %w", kv.Key, err)
	}
	return obj, nil
}

// cachedCopy is a copy of the shared cache's object when the cache holds
// the very version the datastore just returned (its resourceVersion is
// the value's revision), nil otherwise. The cache decoded that value with
// api.DecodeStored as decodeStored would, so the copy is what a decode
// would give, for a deep copy's cost rather than a JSON decode's: every
// update, status write and binding reads the object first (it was a
// decode per write in BenchmarkDeployment1000's profile).
//
// Revisions only grow while the process runs (a restore happens before
// the server starts, and the cache starts with it), so a key and a
// revision name one stored value.
func (r *Registry) cachedCopy(res *api.Resource, ns, name string, rev int64) api.Object {
	obj, at := r.cachedShared(res, ns, name)
	if obj == nil || at != rev {
		return nil
	}
	return obj.DeepCopyObject().(api.Object)
}

// GetAtLeast reads ns/name of res as it stood at a revision no older than
// rev, for admission (rev is Attributes.Revision: every write finished
// before this one was asked for is at or below it). It answers from the
// shared cache once the cache holds rev, with the cache's own object,
// which the caller must not change; when the cache cannot say (none, not
// serving res, too far behind, or no such object, whose NotFound the
// datastore words) it reads as Get does.
func (r *Registry) GetAtLeast(ctx context.Context, res *api.Resource, ns, name string, rev int64) (api.Object, error) {
	if obj := r.cachedAtLeast(ctx, res, ns, name, rev); obj != nil {
		return obj, nil
	}
	return r.Get(ctx, res, ns, name)
}

// CacheHolds reports whether the shared cache holds revision rev,
// waiting for it as the cached reads above do; false without a cache or
// when the wait ends first. For admission's answers derived from the
// cache (the default priority), valid once the cache is at rev.
func (r *Registry) CacheHolds(ctx context.Context, rev int64) bool {
	return r.cache != nil && (r.cache.Revision() >= rev || r.awaitCache(ctx, rev))
}

// cachedAtLeast is the cache's ns/name of res once the cache holds rev;
// nil when it cannot say.
func (r *Registry) cachedAtLeast(ctx context.Context, res *api.Resource, ns, name string, rev int64) api.Object {
	if r.cache == nil || rev <= 0 {
		return nil
	}
	inf, ok := r.cache.Serves(res)
	if !ok || (r.cache.Revision() < rev && !r.awaitCache(ctx, rev)) {
		return nil
	}
	obj, _ := inf.Get(ns, name)
	return obj
}
