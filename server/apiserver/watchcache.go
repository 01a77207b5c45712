package apiserver

import (
	"context"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// maxEventsPerFlush bounds how many pending events a watch writes before
// it flushes.
const maxEventsPerFlush = 256

// watchFlushDelay is how long a cache-fed watch holds written events
// before it flushes them, gathering whatever else comes meanwhile. Each
// flush costs every watcher a frame, a TLS record and a write call (and
// its client a read): with 200 watchers and changes arriving every
// millisecond or two, flushing per change was most of the fan-out's CPU.
// An event waits at most this long longer. While it holds, the watch does
// not take changes from its subscription (whose buffer holds 1,024): it
// wakes once per flush to write all that came, instead of once per change
// (runtime.selectgo alone was 12 % of BenchmarkWatchers200Creates2000).
const watchFlushDelay = 3 * time.Millisecond

// subscribe starts following res's changes after rev from the shared
// cache, when it serves res and still keeps the changes after rev. Every
// watcher then shares the cache's decoded objects and their encoding
// instead of decoding and encoding each change itself.
//
// A revision the datastore has compacted is not served even when the cache
// still keeps it: the watch gets the datastore's 410, as before.
func (a *API) subscribe(ctx context.Context, res *api.Resource, after int64) (*informer.Subscription, bool) {
	c := a.reg.Cache()
	if c == nil {
		return nil, false
	}
	if compacted, err := a.store.CompactRevision(ctx); err != nil || after < compacted {
		return nil, false
	}
	if _, ok := c.Serves(res); !ok {
		return nil, false
	}
	return c.Subscribe(after)
}

// pumpCache writes the subscription's changes to the stream until ctx
// ends or the client goes (cut false), or until the cache cuts the
// subscription off for falling behind (cut true, with the revision every
// change up to which was sent). With bookmarks it asks the cache for
// progress on upstream's schedule and sends each answer as a BOOKMARK.
func (a *API) pumpCache(ctx context.Context, ws *watchStream, sub *informer.Subscription, last int64, bookmarks bool) (int64, bool) {
	defer sub.Close()
	due := a.bookmarkDue(ctx, bookmarks)
	c := cursor{start: last, last: last, bookmarks: bookmarks}
	fl := newHeldFlush()
	defer fl.t.Stop()
	for {
		select {
		case <-ctx.Done():
			_ = ws.spill() // sent as the handler returns, as before
			return c.last, false
		case <-due:
			a.reg.Cache().RequestProgress()
			due = a.bookmarkDue(ctx, bookmarks)
		case <-fl.t.C:
			if ws.pending(sub, &c) != nil || fl.flush(ws) != nil {
				return c.last, false
			}
		case e, ok := <-fl.source(sub):
			if !ok {
				_ = fl.flush(ws) // the caller goes on from the datastore
				return c.last, true
			}
			if ws.cacheEvents(e, sub, &c) != nil {
				return c.last, false
			}
			fl.hold()
		}
	}
}

// bookmarkDue fires when the next bookmark is due; nil without bookmarks
// or when none is due before the watch ends.
func (a *API) bookmarkDue(ctx context.Context, bookmarks bool) <-chan time.Time {
	deadline, _ := ctx.Deadline()
	if d, ok := nextBookmark(time.Now(), deadline, a.bookmarkEvery); bookmarks && ok {
		return time.After(d)
	}
	return nil
}

// heldFlush flushes what a watch wrote watchFlushDelay after the first
// write not yet flushed.
type heldFlush struct {
	t    *time.Timer
	held bool
}

func newHeldFlush() *heldFlush {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &heldFlush{t: t}
}

// source is the subscription's channel, or nil while writes are held:
// what comes meanwhile is gathered until the flush, one wake-up per flush
// rather than per change.
func (f *heldFlush) source(sub *informer.Subscription) <-chan *informer.Event {
	if f.held {
		return nil
	}
	return sub.Events()
}

// hold notes a write; the first since the last flush arms the timer.
func (f *heldFlush) hold() {
	if !f.held {
		f.held = true
		f.t.Reset(watchFlushDelay)
	}
}

// flush flushes ws if anything is held.
func (f *heldFlush) flush(ws *watchStream) error {
	if !f.held {
		return nil
	}
	f.held = false
	f.t.Stop()
	return ws.flush()
}

// cursor is where a cache-fed watch stands.
type cursor struct {
	start     int64 // the watch sends nothing at or before start
	last      int64 // every change up to last has been handled
	bookmarks bool
}

// pending writes what came while the watch held its writes, if anything
// did; a closed subscription is left for the caller's next receive.
func (ws *watchStream) pending(sub *informer.Subscription, c *cursor) error {
	select {
	case e, ok := <-sub.Events():
		if !ok {
			return nil
		}
		return ws.cacheEvents(e, sub, c)
	default:
		return nil
	}
}

// cacheEvents writes e and whatever else is already pending (up to
// maxEventsPerFlush): changes after c.last, and progress after c.start as
// bookmarks (a progress revision is never older than a change before it).
func (ws *watchStream) cacheEvents(e *informer.Event, sub *informer.Subscription, c *cursor) error {
	for n := 0; ; n++ {
		var err error
		switch {
		case e.Type == informer.Progress:
			if c.bookmarks && e.Rev > c.start {
				err = ws.bookmark(e.Rev, false)
			}
		case e.Rev > c.last:
			c.last = e.Rev
			err = ws.cacheEvent(e)
		}
		if err != nil || n == maxEventsPerFlush {
			return err
		}
		select {
		case next, ok := <-sub.Events():
			if !ok {
				return nil
			}
			e = next
		default:
			return nil
		}
	}
}

// cacheEvent sends what one change means to this watcher, if anything
// (see classify): the shared encoding when the change goes out as it is.
func (ws *watchStream) cacheEvent(e *informer.Event) error {
	if e.Resource != ws.ri.res {
		return nil
	}
	cur := e.Object()
	if cur == nil || (ws.ri.namespace != "" && cur.GetNamespace() != ws.ri.namespace) {
		return nil // nil: the stored value cannot be decoded (the cache logged it)
	}
	typ, obj := ws.classifyCached(e, cur)
	if typ == "" {
		return nil
	}
	if obj != cur || ws.ri.out == outTable {
		return ws.send(typ, obj)
	}
	data, err := e.JSON()
	if err != nil {
		ws.a.log.Warn("skip unencodable watch event", "name", obj.GetName(), "err", err)
		return nil
	}
	return ws.write(typ, data)
}

// classifyCached is classify for a cached change: with selectors, an
// object that starts matching is ADDED and one that stops matching is
// DELETED (as it was before the change, at the change's revision).
func (ws *watchStream) classifyCached(e *informer.Event, cur api.Object) (string, api.Object) {
	res := ws.ri.res
	matches := ws.lq.Selects(res, cur)
	switch e.Type {
	case informer.Added:
		return pick(matches, eventAdded, ""), cur
	case informer.Deleted:
		return pick(matches, eventDeleted, ""), cur
	}
	if !ws.lq.Filtered() {
		return eventModified, cur
	}
	old := e.Old()
	was := old != nil && ws.lq.Selects(res, old)
	switch {
	case matches && was:
		return eventModified, cur
	case matches:
		return eventAdded, cur
	case was:
		prev := old.DeepCopyObject().(api.Object)
		prev.SetResourceVersion(cur.GetResourceVersion())
		return eventDeleted, prev
	}
	return "", nil
}
