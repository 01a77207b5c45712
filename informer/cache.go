package informer

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// registryPrefix is where every API object is kept.
const registryPrefix = "/registry/"

// Config tunes a Cache; zero values get defaults.
type Config struct {
	Logger *slog.Logger // default slog.Default()
	// CheckHandoff, for tests, makes the cache decode every revision it
	// takes from the registry's offer too, and gives both objects to it.
	CheckHandoff func(key string, handed, decoded api.Object)
}

// Cache holds one informer per resource asked for. The informers asked for
// before Start are fed by one list and one watch of the whole registry;
// one asked for later follows its own resource.
type Cache struct {
	store datastore.Store
	log   *slog.Logger
	check func(key string, handed, decoded api.Object) // Config.CheckHandoff
	apply sync.RWMutex                                 // see state.apply

	mu      sync.Mutex
	states  map[string]*state        // by resource path
	byRes   map[*api.Resource]*state // the same states by resource (Serves: no key to build)
	started bool
	ctx     context.Context
	late    []*listwatch.Follower

	feed   map[string]*state        // the states the shared follower feeds; fixed at Start
	fedBy  map[*api.Resource]*state // feed by resource (Offer: no key to build)
	fed    atomic.Bool              // feed is set
	f      *listwatch.Follower
	mirror *listwatch.Mirror

	hub     hub     // the applied changes, for watchers
	handoff handoff // objects the registry wrote, for their events (handoff.go)
	listing bool    // a list is being applied: its changes are not published
	evRev   int64   // the revision of the event being applied

	rev   atomic.Int64 // every change up to rev is applied (shared states)
	revMu sync.Mutex
	revCh chan struct{} // closed when rev moves; made by the first waiter after (nil: nobody waits)
}

// New makes an empty cache over store.
func New(store datastore.Store, cfg Config) *Cache {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Cache{store: store, log: log, check: cfg.CheckHandoff, states: map[string]*state{},
		byRes: map[*api.Resource]*state{}}
}

// Informer returns res's informer, making it on first use. Every informer
// has the standard indexes (IndexNamespace, IndexOwner; pods also IndexNode).
// A resource served in a version other than its storage version
// (api.Resource.Storage) has no informer of its own: the storage version's
// is returned, holding objects of that version.
func (c *Cache) Informer(res *api.Resource) *Informer {
	if !res.StorageVersion() {
		return c.Informer(res.Storage)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	path := resourcePath(res.Group, res.Name)
	if st, ok := c.states[path]; ok && st.res == res {
		return &Informer{st: st}
	}
	if !c.started {
		st := newState(res, &c.apply, true)
		c.setState(path, st)
		return &Informer{st: st}
	}
	st := newState(res, &sync.RWMutex{}, false)
	c.setState(path, st)
	c.followLate(st)
	return &Informer{st: st}
}

// setState makes st the state of path, in place of any other. Called with
// c.mu held.
func (c *Cache) setState(path string, st *state) {
	if old, ok := c.states[path]; ok {
		delete(c.byRes, old.res)
	}
	c.states[path] = st
	c.byRes[st.res] = st
}

// View returns a new window on the cache (see View).
func (c *Cache) View() *View { return &View{c: c} }

// Start lists the registry and keeps every informer current from the
// datastore's watch until Stop or ctx ends. It returns at once; see
// WaitForSync.
func (c *Cache) Start(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return
	}
	c.started, c.ctx = true, ctx
	c.feed = make(map[string]*state, len(c.states))
	c.fedBy = make(map[*api.Resource]*state, len(c.states))
	for path, st := range c.states {
		c.feed[path] = st
		c.fedBy[st.res] = st
	}
	c.fed.Store(true)
	c.mirror = listwatch.NewMirror(registryPrefix, sink{c})
	c.f = listwatch.New(c.store, registryPrefix, c, listwatch.Config{Logger: c.log, Progress: true})
	c.f.Go(ctx)
}

// Stop ends the watches and waits for them.
func (c *Cache) Stop() {
	c.mu.Lock()
	f, late := c.f, c.late
	c.late = nil
	c.mu.Unlock()
	if f != nil {
		f.Stop()
	}
	for _, l := range late {
		l.Stop()
	}
}

// WaitForSync blocks until every informer has finished its first list, or
// ctx ends (then it returns false).
func (c *Cache) WaitForSync(ctx context.Context) bool {
	c.mu.Lock()
	sts := make([]*state, 0, len(c.states))
	for _, st := range c.states {
		sts = append(sts, st)
	}
	c.mu.Unlock()
	return waitSynced(ctx, sts)
}

func waitSynced(ctx context.Context, sts []*state) bool {
	for _, st := range sts {
		select {
		case <-st.synced:
		case <-ctx.Done():
			return false
		}
	}
	return true
}
