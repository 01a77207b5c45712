package controllers

import (
	"context"
	"log/slog"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// reflector keeps one Informer in step with its resource in the datastore
// (listwatch does the list, the watch, the resume and the relist) and
// decodes what it hands over.
type reflector struct {
	lw  *listwatch.Reflector
	res *api.Resource
	log *slog.Logger
	inf *Informer
}

func newReflector(store datastore.Store, res *api.Resource, log *slog.Logger, inf *Informer) *reflector {
	r := &reflector{res: res, log: log.With("resource", res.Name), inf: inf}
	r.lw = listwatch.New(store, res.Prefix(""), r.log, r)
	return r
}

// start lists until that succeeds, marks the informer synced, then watches
// until ctx ends.
func (r *reflector) start(ctx context.Context) {
	for {
		err := r.lw.List(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("list failed; retrying", "err", err)
		listwatch.Sleep(ctx, time.Second)
	}
	r.inf.markSynced()
	r.lw.Watch(ctx)
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
