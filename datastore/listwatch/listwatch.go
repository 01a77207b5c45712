// Package listwatch keeps a consumer in step with the keys under one
// datastore prefix: a List, then a Watch from the list's revision. When the
// store cuts a slow watch off, it resumes from the last revision it saw;
// when that revision has been compacted, it lists again and reports what
// disappeared meanwhile. The scheduler's cache and the controllers'
// informers are both fed this way.
package listwatch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// Sink is told of the keys under the prefix, in revision order, on the
// Reflector's goroutine. key is the datastore key without the prefix.
type Sink interface {
	Upsert(key string, kv *datastore.KeyValue)
	Remove(key string)
}

// Reflector follows one prefix. List, then Watch; neither is safe to call
// while the other runs.
type Reflector struct {
	store  datastore.Store
	prefix string
	log    *slog.Logger
	sink   Sink
	known  map[string]int64 // key -> mod revision handed to the sink
	rev    int64            // every change up to rev has been handed over
	// Retry is the wait after a failed watch (default 1 s).
	Retry time.Duration
}

// PageSize is how many keys one List page reads.
const PageSize = 500

// New makes a Reflector of prefix for sink.
func New(store datastore.Store, prefix string, log *slog.Logger, sink Sink) *Reflector {
	return &Reflector{store: store, prefix: prefix, log: log, sink: sink,
		known: map[string]int64{}, Retry: time.Second}
}

// Len is the number of keys known.
func (r *Reflector) Len() int { return len(r.known) }

// Revision is the revision every change up to which has been handed over.
func (r *Reflector) Revision() int64 { return r.rev }

// ModRevision is the mod revision of key as last handed over.
func (r *Reflector) ModRevision(key string) (int64, bool) {
	rev, ok := r.known[key]
	return rev, ok
}

var errCompactedMidList = errors.New("revision compacted between pages")

// List reads every key (page by page, at one revision), hands over the new
// and changed ones, and removes the ones that are gone.
func (r *Reflector) List(ctx context.Context) error {
	seen := map[string]bool{}
	rev, err := r.listPages(ctx, seen)
	if errors.Is(err, errCompactedMidList) {
		clear(seen) // the list's revision was compacted between pages: start over
		rev, err = r.listPages(ctx, seen)
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", r.prefix, err)
	}
	for key := range r.known {
		if !seen[key] {
			delete(r.known, key)
			r.sink.Remove(key)
		}
	}
	r.rev = rev
	return nil
}

func (r *Reflector) listPages(ctx context.Context, seen map[string]bool) (int64, error) {
	var cont string
	var rev int64
	for {
		page, err := r.store.List(ctx, r.prefix, datastore.ListOptions{Limit: PageSize, Continue: cont})
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
				r.known[key] = kv.ModRevision
				r.sink.Upsert(key, kv)
			}
		}
		if cont = page.Continue; cont == "" {
			return rev, nil
		}
	}
}

// Watch follows the prefix from the listed revision until ctx ends.
func (r *Reflector) Watch(ctx context.Context) {
	for ctx.Err() == nil {
		ch, err := r.store.Watch(ctx, r.prefix, r.rev)
		if errors.Is(err, datastore.ErrCompacted) {
			r.log.Warn("watch fell behind compaction; listing again", "prefix", r.prefix, "rev", r.rev)
			if err = r.List(ctx); err == nil {
				continue
			}
		}
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("watch failed; retrying", "prefix", r.prefix, "rev", r.rev, "err", err)
				Sleep(ctx, r.Retry)
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

func (r *Reflector) event(ev *datastore.Event) {
	key := strings.TrimPrefix(ev.KV.Key, r.prefix)
	r.rev = ev.Revision
	if ev.Type != datastore.EventDelete {
		r.known[key] = ev.KV.ModRevision
		r.sink.Upsert(key, ev.KV)
		return
	}
	if _, ok := r.known[key]; ok {
		delete(r.known, key)
		r.sink.Remove(key)
	}
}

// Sleep waits for d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
