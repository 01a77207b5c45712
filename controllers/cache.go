package controllers

import (
	"context"
	"log/slog"
	"sync"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Cache holds one Informer per resource, shared by every controller. Ask
// for informers (and add handlers and indexes) before Start.
type Cache struct {
	store     datastore.Store
	log       *slog.Logger
	mu        sync.Mutex
	informers map[*api.Resource]*Informer
	started   bool
	running   []*reflector
}

// NewCache makes an empty cache over store.
func NewCache(store datastore.Store, log *slog.Logger) *Cache {
	return &Cache{store: store, log: log, informers: map[*api.Resource]*Informer{}}
}

// Informer returns res's informer, making it on first use. Every informer
// has the standard indexes (IndexNamespace, IndexOwner; pods also IndexNode).
func (c *Cache) Informer(res *api.Resource) *Informer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if inf, ok := c.informers[res]; ok {
		return inf
	}
	if c.started {
		panic("controllers: informer for " + res.Name + " asked for after the cache started")
	}
	inf := newInformer(res)
	c.informers[res] = inf
	return inf
}

// Start lists every informer's resource and keeps it current from the
// datastore's watch until Stop or ctx ends. It returns at once; see
// WaitForSync.
func (c *Cache) Start(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started = true
	for res, inf := range c.informers {
		r := newReflector(c.store, res, c.log, inf)
		r.f.Go(ctx)
		c.running = append(c.running, r)
	}
}

// Stop ends every informer's list and watch and waits for them.
func (c *Cache) Stop() {
	c.mu.Lock()
	running := c.running
	c.running = nil
	c.mu.Unlock()
	for _, r := range running {
		r.f.Stop()
	}
}

// WaitForSync blocks until every informer has finished its first list, or
// ctx ends (then it returns false).
func (c *Cache) WaitForSync(ctx context.Context) bool {
	c.mu.Lock()
	infs := make([]*Informer, 0, len(c.informers))
	for _, inf := range c.informers {
		infs = append(infs, inf)
	}
	c.mu.Unlock()
	for _, inf := range infs {
		select {
		case <-inf.synced:
		case <-ctx.Done():
			return false
		}
	}
	return true
}
