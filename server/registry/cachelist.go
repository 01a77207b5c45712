package registry

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// cacheWait bounds how long a list waits for the cache to catch up before
// it reads the datastore instead.
const cacheWait = 3 * time.Second

// listFromCache answers a list from the shared cache when that answer is
// as fresh as the datastore's: it first waits until the cache has applied
// every change up to the store's current revision (or the revision asked
// for). Pages, exact revisions and lists longer than their limit are left
// to the datastore (ok false). The objects are the cache's: read-only.
func (r *Registry) listFromCache(ctx context.Context, res *api.Resource, ns string, lo *ListOptions) (*List, bool) {
	items, rev, ok := r.itemsFromCache(ctx, res, ns, lo)
	if !ok {
		return nil, false
	}
	return &List{Items: items, ResourceVersion: FormatResourceVersion(rev)}, true
}

// itemsFromCache is listFromCache's items and the revision they are at.
func (r *Registry) itemsFromCache(ctx context.Context, res *api.Resource, ns string, lo *ListOptions) (items []api.Object, rev int64, ok bool) {
	if r.cache == nil || lo.Continue != "" || lo.ResourceVersionMatch == string(metav1.ResourceVersionMatchExact) {
		return nil, 0, false
	}
	inf, ok := r.cache.Serves(res)
	if !ok {
		return nil, 0, false
	}
	want := lo.ResourceVersion
	if want == 0 {
		cur, err := r.store.CurrentRevision(ctx)
		if err != nil {
			return nil, 0, false
		}
		want = cur
	}
	if r.cache.Revision() < want && !r.awaitCache(ctx, want) {
		return nil, 0, false
	}
	ok = false
	r.cache.Read(func(at int64) {
		items, rev = selectCached(inf, res, ns, lo), at
		ok = lo.Limit <= 0 || int64(len(items)) <= lo.Limit
	})
	if !ok {
		return nil, 0, false
	}
	return items, rev, true
}

// awaitCache waits, at most cacheWait (and at most cacheWaitShared more),
// until the cache holds revision want.
func (r *Registry) awaitCache(ctx context.Context, want int64) bool {
	return r.cache.WaitForRevision(r.waitBound.bounded(ctx), want) == nil
}

// cacheWaitShared is how long one bounded context serves the waits of
// one caller's context: each wait is bounded by cacheWait to
// cacheWait+cacheWaitShared.
const cacheWaitShared = time.Second

// waitBound hands out contexts ending a cache wait: the last one made,
// shared by the waits under the same context (a controller's creates)
// while its deadline is at least cacheWait away. A context with a
// timeout of its own for every wait cost five allocations per admitted
// write. A replaced one ends at its deadline, or with its parent.
type waitBound struct {
	last atomic.Pointer[boundCtx]
}

type boundCtx struct {
	parent   context.Context
	ctx      context.Context
	deadline time.Time
}

// bounded is parent, ended at least cacheWait from now.
func (w *waitBound) bounded(parent context.Context) context.Context {
	now := time.Now()
	if b := w.last.Load(); b != nil && b.parent == parent && !now.Add(cacheWait).After(b.deadline) {
		return b.ctx
	}
	deadline := now.Add(cacheWait + cacheWaitShared)
	ctx, cancel := context.WithDeadline(parent, deadline)
	_ = cancel // the deadline (or the parent) cancels it: others may be waiting under it
	b := &boundCtx{ctx: ctx, deadline: deadline}
	if reflect.TypeOf(parent).Comparable() { // == on another kind panics
		b.parent = parent
	}
	w.last.Store(b)
	return ctx
}

// selectCached picks the objects passing lo's selectors, in key order (as
// the datastore lists them), from the narrowest index that fits: a pod's
// node, the namespace, or everything.
func selectCached(inf *informer.Informer, res *api.Resource, ns string, lo *ListOptions) []api.Object {
	var cand []api.Object
	node, byNode := "", false
	if lo.Fields != nil && res.Group == "" && res.Name == "pods" {
		node, byNode = lo.Fields.RequiresExactMatch("spec.nodeName")
	}
	switch {
	case byNode:
		cand = inf.ByIndex(informer.IndexNode, node)
	case ns != "":
		cand = inf.ByIndex(informer.IndexNamespace, ns)
	default:
		cand = inf.List("", nil)
	}
	out := cand[:0] // in place: ByIndex and List make a new slice for every call
	for _, o := range cand {
		if (ns == "" || o.GetNamespace() == ns) && lo.Selects(res, o) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b api.Object) int { // no allocation, unlike sort.Slice
		if c := strings.Compare(a.GetNamespace(), b.GetNamespace()); c != 0 {
			return c
		}
		return strings.Compare(a.GetName(), b.GetName())
	})
	return out
}
