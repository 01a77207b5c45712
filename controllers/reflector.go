package controllers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// reflector keeps one Informer in step with its resource in the datastore:
// a List, then a Watch from the list's revision. When the store cuts a
// slow watch off, it resumes from the last revision it saw; when that
// revision has been compacted, it lists again and removes what is gone.
type reflector struct {
	store  datastore.Store
	res    *api.Resource
	prefix string
	log    *slog.Logger
	inf    *Informer
	known  map[string]int64 // key -> mod revision of the version applied
	rev    int64            // every change up to rev has been applied
	retry  time.Duration
}

const listPage = 500

func newReflector(store datastore.Store, res *api.Resource, log *slog.Logger, inf *Informer) *reflector {
	return &reflector{store: store, res: res, prefix: res.Prefix(""), log: log.With("resource", res.Name),
		inf: inf, known: map[string]int64{}, retry: time.Second}
}

// start lists until that succeeds, marks the informer synced, then watches
// until ctx ends.
func (r *reflector) start(ctx context.Context) {
	for {
		err := r.list(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("list failed; retrying", "err", err)
		sleep(ctx, r.retry)
	}
	r.inf.markSynced()
	r.watch(ctx)
}

var errCompactedMidList = errors.New("revision compacted between pages")

func (r *reflector) list(ctx context.Context) error {
	seen := map[string]bool{}
	rev, err := r.listPages(ctx, seen)
	if errors.Is(err, errCompactedMidList) {
		clear(seen)
		rev, err = r.listPages(ctx, seen)
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", r.res.Name, err)
	}
	for key := range r.known {
		if !seen[key] {
			delete(r.known, key)
			r.inf.remove(key)
		}
	}
	r.rev = rev
	return nil
}

func (r *reflector) listPages(ctx context.Context, seen map[string]bool) (int64, error) {
	var cont string
	var rev int64
	for {
		page, err := r.store.List(ctx, r.prefix, datastore.ListOptions{Limit: listPage, Continue: cont})
		if errors.Is(err, datastore.ErrCompacted) && cont != "" {
			return 0, fmt.Errorf("%w: %w", errCompactedMidList, err)
		}
		if err != nil {
			return 0, err
		}
		rev = cmp.Or(rev, page.Revision)
		for _, kv := range page.Items {
			key := strings.TrimPrefix(kv.Key, r.prefix)
			seen[key] = true
			if r.known[key] != kv.ModRevision {
				r.apply(key, kv)
			}
		}
		if cont = page.Continue; cont == "" {
			return rev, nil
		}
	}
}

func (r *reflector) watch(ctx context.Context) {
	for ctx.Err() == nil {
		ch, err := r.store.Watch(ctx, r.prefix, r.rev)
		if errors.Is(err, datastore.ErrCompacted) {
			r.log.Warn("watch fell behind compaction; listing again", "rev", r.rev)
			if err = r.list(ctx); err == nil {
				continue
			}
		}
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("watch failed; retrying", "rev", r.rev, "err", err)
				sleep(ctx, r.retry)
			}
			continue
		}
		for batch := range ch {
			for i := range batch {
				r.event(&batch[i])
			}
		}
	}
}

func (r *reflector) event(ev *datastore.Event) {
	key := strings.TrimPrefix(ev.KV.Key, r.prefix)
	r.rev = ev.Revision
	if ev.Type != datastore.EventDelete {
		r.apply(key, ev.KV)
		return
	}
	if _, ok := r.known[key]; ok {
		delete(r.known, key)
		r.inf.remove(key)
	}
}

// apply decodes a stored object (its resourceVersion is the key's mod
// revision) and puts it in the informer.
func (r *reflector) apply(key string, kv *datastore.KeyValue) {
	r.known[key] = kv.ModRevision
	obj, _, err := api.DecodeJSON(r.res, kv.Value, false)
	if err != nil {
		r.log.Warn("cannot decode stored object; ignoring this version", "key", kv.Key, "rev", kv.ModRevision, "err", err)
		return
	}
	obj.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	r.inf.upsert(obj)
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
