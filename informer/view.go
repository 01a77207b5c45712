package informer

import (
	"context"
	"sync"

	"github.com/bramble-edge/bramble/api"
)

// View is one consumer's window on a Cache, for parts that start and stop
// while the cache runs on (the scheduler and the controllers start and
// stop with leadership). The handlers added through its informers take
// effect when it starts, each replayed the objects held, and are removed
// when it stops. A View made by NewOwned also starts and stops its cache.
type View struct {
	c   *Cache
	own bool

	mu      sync.Mutex
	asked   []*state
	pending []pendingHandler
	removes []func()
	started bool
}

type pendingHandler struct {
	st *state
	h  Handler
}

// NewOwned makes a cache over store and a View that owns it.
func NewOwned(c *Cache) *View { return &View{c: c, own: true} }

// Informer returns a handle on res's informer whose handlers go through
// the view.
func (v *View) Informer(res *api.Resource) *Informer {
	inf := v.c.Informer(res)
	inf.view = v
	v.mu.Lock()
	v.asked = append(v.asked, inf.st)
	v.mu.Unlock()
	return inf
}

func (v *View) add(st *state, h Handler) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.started {
		v.pending = append(v.pending, pendingHandler{st, h})
		return
	}
	v.removes = append(v.removes, st.addHandler(h))
}

// Start registers the handlers added so far (and starts the cache, if the
// view owns it). It returns at once; see WaitForSync.
func (v *View) Start(ctx context.Context) {
	if v.own {
		v.c.Start(ctx)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.started = true
	for _, p := range v.pending {
		v.removes = append(v.removes, p.st.addHandler(p.h))
	}
	v.pending = nil
}

// Stop removes the view's handlers (and stops the cache, if the view owns
// it). Handlers may still be running when it returns only if they were
// called before it; none is called after.
func (v *View) Stop() {
	v.mu.Lock()
	removes := v.removes
	v.removes, v.started = nil, false
	v.mu.Unlock()
	for _, rm := range removes {
		rm()
	}
	if v.own {
		v.c.Stop()
	}
}

// WaitForSync blocks until every informer the view asked for has finished
// its first list, or ctx ends (then it returns false).
func (v *View) WaitForSync(ctx context.Context) bool {
	v.mu.Lock()
	sts := append([]*state(nil), v.asked...)
	v.mu.Unlock()
	return waitSynced(ctx, sts)
}

// Cache is the cache the view looks at.
func (v *View) Cache() *Cache { return v.c }
