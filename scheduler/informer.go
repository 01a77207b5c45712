package scheduler

import (
	"context"
	"log/slog"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/informer"
)

var (
	nodesResource = mustLookup("nodes")
	podsResource  = mustLookup("pods")
)

func mustLookup(name string) *api.Resource {
	r, ok := api.Lookup("", "v1", name)
	if !ok {
		panic("scheduler: api does not serve " + name)
	}
	return r
}

// eventHandler receives the objects of one resource as the reflector learns
// of them. name is the object's key below the resource prefix: "name" for
// nodes, "namespace/name" for pods.
type eventHandler interface {
	upsert(obj api.Object)
	remove(name string)
}

// cacheHandler feeds an eventHandler from an informer of the shared cache.
func cacheHandler(h eventHandler) informer.Handler {
	return informer.Handler{
		OnAdd:    h.upsert,
		OnUpdate: func(_, cur api.Object) { h.upsert(cur) },
		OnDelete: func(last api.Object) { h.remove(informer.KeyOf(last)) },
	}
}

// reflector keeps a handler in step with one resource in the datastore
// (a listwatch.Follower does the list, the watch, the resume and the
// relist; its Mirror turns them into upserts and removals) and decodes
// what it hands over.
type reflector struct {
	*listwatch.Mirror
	f   *listwatch.Follower
	res *api.Resource
	log *slog.Logger
	h   eventHandler
}

func newReflector(store datastore.Store, res *api.Resource, log *slog.Logger, h eventHandler) *reflector {
	r := &reflector{res: res, log: log.With("resource", res.Name), h: h}
	r.Mirror = listwatch.NewMirror(res.Prefix(""), r)
	r.f = listwatch.New(store, res.Prefix(""), r.Mirror, listwatch.Config{Logger: r.log})
	return r
}

// count is the number of objects known; not safe once run has started.
func (r *reflector) count() int { return r.Len() }

// Revision is the revision the reflector has handed over everything up
// to; not safe once run has started.
func (r *reflector) Revision() int64 { return r.f.Revision() }

// list reads every object and hands over what changed.
func (r *reflector) list(ctx context.Context) error { return r.f.Replace(ctx) }

// run watches until ctx ends.
func (r *reflector) run(ctx context.Context) { r.f.Follow(ctx) }

// Upsert decodes a stored object (its resourceVersion is the key's mod
// revision) and hands it over.
func (r *reflector) Upsert(name string, kv *datastore.KeyValue) {
	obj, err := api.DecodeStored(r.res, kv.Value, kv.ModRevision)
	if err != nil {
		r.log.Warn("cannot decode stored object; ignoring this version", "key", kv.Key, "rev", kv.ModRevision, "err", err)
		return
	}
	r.h.upsert(obj)
}

// Remove hands over a deletion.
func (r *reflector) Remove(name string) { r.h.remove(name) }
