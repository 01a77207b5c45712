package admission

import (
	"context"
	"sync"
	"sync/atomic"

	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/registry"
)

// defaultMemo keeps the global default class as last listed, so that a
// pod create need not list every PriorityClass (about three allocations
// a pod): a handler on the shared cache's PriorityClasses counts their
// changes, and the answer stands while the count is the one read before
// the list it came from and the cache holds the pod's revision.
//
// Why that is enough: the cache runs a change's handlers before it
// advances its revision past the change, so once Revision() >= rev every
// change up to rev has been counted; an unchanged count means none came
// after the list was read, and the list saw every change counted before.
type defaultMemo struct {
	mu        sync.Mutex // serializes follow
	following atomic.Bool
	changes   atomic.Uint64
	last      atomic.Pointer[memoAnswer]
}

type memoAnswer struct {
	changes uint64
	def     *schedulingv1.PriorityClass // nil: no global default; read-only
}

// lookup is the remembered default when it stands for a read at rev,
// once the cache holds rev (waiting as the list would).
func (m *defaultMemo) lookup(ctx context.Context, reg *registry.Registry, rev int64) (*schedulingv1.PriorityClass, bool) {
	if rev <= 0 || !m.following.Load() || m.last.Load() == nil || !reg.CacheHolds(ctx, rev) {
		return nil, false
	}
	a := m.last.Load()
	if a.changes != m.changes.Load() {
		return nil, false
	}
	return a.def, true
}

// begin starts counting changes once the cache serves PriorityClasses
// and returns the count to remember a list read after it under; ok is
// false while changes are not counted (nothing may be remembered).
func (m *defaultMemo) begin(cache *informer.Cache) (changes uint64, ok bool) {
	if cache == nil {
		return 0, false
	}
	if !m.following.Load() {
		m.mu.Lock()
		if !m.following.Load() {
			if inf, serves := cache.Serves(priorityClassesResource); serves {
				changed := func(api.Object) { m.changes.Add(1) }
				inf.AddHandler(informer.Handler{OnAdd: changed, OnDelete: changed,
					OnUpdate: func(_, cur api.Object) { changed(cur) }})
				m.following.Store(true)
			}
		}
		m.mu.Unlock()
		if !m.following.Load() {
			return 0, false
		}
	}
	return m.changes.Load(), true
}

// remember keeps def as the answer listed after begin returned changes.
func (m *defaultMemo) remember(changes uint64, def *schedulingv1.PriorityClass) {
	m.last.Store(&memoAnswer{changes: changes, def: def})
}
