package scheduler

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

// reflector keeps a handler in step with one resource in the datastore:
// a List, then a Watch from the list's revision. When the store cuts a slow
// watch off, it resumes from the last revision it saw; when that revision
// is compacted, it lists again and tells the handler what disappeared.
type reflector struct {
	store  datastore.Store
	res    *api.Resource
	prefix string
	log    *slog.Logger
	h      eventHandler
	known  map[string]int64 // name -> mod revision of the version handled
	rev    int64            // every change up to rev has been handled
	retry  time.Duration    // wait after a failed watch or list
}

// listPage is the page size of a (re)list.
const listPage = 500

func newReflector(store datastore.Store, res *api.Resource, log *slog.Logger, h eventHandler) *reflector {
	return &reflector{store: store, res: res, prefix: res.Prefix(""), log: log.With("resource", res.Name),
		h: h, known: map[string]int64{}, retry: time.Second}
}

// count is the number of objects known; not safe once run has started.
func (r *reflector) count() int { return len(r.known) }

// list reads every object (page by page, at one revision), hands the new
// and changed ones to the handler, and removes the ones that are gone.
func (r *reflector) list(ctx context.Context) error {
	seen := map[string]bool{}
	rev, err := r.listPages(ctx, seen)
	if errors.Is(err, errCompactedMidList) {
		clear(seen) // the list's revision was compacted between pages: start over
		rev, err = r.listPages(ctx, seen)
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", r.res.Name, err)
	}
	for name := range r.known {
		if !seen[name] {
			delete(r.known, name)
			r.h.remove(name)
		}
	}
	r.rev = rev
	return nil
}

var errCompactedMidList = errors.New("revision compacted between pages")

// listPages reads all pages, applying what changed and noting what it saw;
// it returns the revision the list was read at.
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
			name := strings.TrimPrefix(kv.Key, r.prefix)
			seen[name] = true
			if r.known[name] != kv.ModRevision {
				r.apply(name, kv)
			}
		}
		if cont = page.Continue; cont == "" {
			return rev, nil
		}
	}
}

// run watches until ctx ends.
func (r *reflector) run(ctx context.Context) {
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

// event applies one change.
func (r *reflector) event(ev *datastore.Event) {
	name := strings.TrimPrefix(ev.KV.Key, r.prefix)
	r.rev = ev.Revision
	if ev.Type != datastore.EventDelete {
		r.apply(name, ev.KV)
		return
	}
	if _, ok := r.known[name]; ok {
		delete(r.known, name)
		r.h.remove(name)
	}
}

// apply decodes a stored object and hands it over. Stored JSON carries no
// resourceVersion: it is the key's mod revision.
func (r *reflector) apply(name string, kv *datastore.KeyValue) {
	r.known[name] = kv.ModRevision
	obj, _, err := api.DecodeJSON(r.res, kv.Value, false)
	if err != nil {
		r.log.Warn("cannot decode stored object; ignoring this version", "key", kv.Key, "rev", kv.ModRevision, "err", err)
		return
	}
	obj.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	r.h.upsert(obj)
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
