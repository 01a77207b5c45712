package controllers

import (
	"context"
	"log/slog"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// reflector keeps one Informer in step with its resource in the datastore:
// a listwatch.Follower does the list, the watch, the resume and the
// relist, its Mirror turns them into upserts and removals, and the
// reflector decodes what they hand over.
type reflector struct {
	*listwatch.Mirror
	f   *listwatch.Follower
	res *api.Resource
	log *slog.Logger
	inf *Informer
}

func newReflector(store datastore.Store, res *api.Resource, log *slog.Logger, inf *Informer) *reflector {
	r := &reflector{res: res, log: log.With("resource", res.Name), inf: inf}
	r.Mirror = listwatch.NewMirror(res.Prefix(""), r)
	r.f = listwatch.New(store, res.Prefix(""), r, listwatch.Config{Logger: r.log})
	return r
}

// OnReplace applies a list; the first one marks the informer synced.
func (r *reflector) OnReplace(ctx context.Context, l *listwatch.List) error {
	if err := r.Mirror.OnReplace(ctx, l); err != nil {
		return err
	}
	r.inf.markSynced()
	return nil
}

// Upsert decodes a stored object (its resourceVersion is the key's mod
// revision) and puts it in the informer.
func (r *reflector) Upsert(_ string, kv *datastore.KeyValue) {
	obj, err := api.DecodeStored(r.res, kv.Value, kv.ModRevision)
	if err != nil {
		r.log.Warn("cannot decode stored object; ignoring this version", "key", kv.Key, "rev", kv.ModRevision, "err", err)
		return
	}
	r.inf.upsert(obj)
}

// Remove takes a deleted object out of the informer.
func (r *reflector) Remove(key string) { r.inf.remove(key) }
