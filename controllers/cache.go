package controllers

import (
	"log/slog"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// The controllers read the process's shared informer cache (package
// informer) through a View: the handlers a controller adds take effect when
// the manager starts and go when it stops, while the cache runs on.
type (
	// Cache is the controllers' window on the shared cache.
	Cache = informer.View
	// Informer is one resource's cached, indexed objects.
	Informer = informer.Informer
	// Handler is told of changes in commit order.
	Handler = informer.Handler
	// IndexFunc gives the values under which an object is indexed.
	IndexFunc = informer.IndexFunc
)

// Standard indexes every informer keeps.
const (
	IndexNamespace = informer.IndexNamespace
	IndexOwner     = informer.IndexOwner
	IndexNode      = informer.IndexNode
	IndexOrphan    = informer.IndexOrphan
)

// NewCache makes a cache of its own over store, started and stopped with
// the returned View: for tests and callers without a shared cache.
func NewCache(store datastore.Store, log *slog.Logger) *Cache {
	return informer.NewOwned(informer.New(store, informer.Config{Logger: log}))
}
