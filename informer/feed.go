package informer

import (
	"context"
	"strings"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

var _ listwatch.ProgressHandler = (*Cache)(nil)

// OnReplace applies a list of the whole registry; the first one marks the
// shared informers synced.
func (c *Cache) OnReplace(ctx context.Context, l *listwatch.List) error {
	c.apply.Lock()
	c.listing = true
	err := c.mirror.OnReplace(ctx, l)
	c.listing = false
	if err == nil {
		c.hub.reset(l.Revision()) // watchers may have missed changes: they start again
		c.setRevision(l.Revision())
		c.handoff.sweep(l.Revision())
	}
	c.apply.Unlock()
	if err != nil {
		return err
	}
	for _, st := range c.feed {
		st.markSynced()
	}
	return nil
}

// OnEvent applies one change.
func (c *Cache) OnEvent(ctx context.Context, ev *datastore.Event) {
	c.apply.Lock()
	defer c.apply.Unlock()
	c.evRev = ev.Revision
	c.mirror.OnEvent(ctx, ev)
	c.setRevision(ev.Revision)
}

// OnProgress notes that every change up to rev has been applied.
func (c *Cache) OnProgress(_ context.Context, rev int64) {
	c.apply.Lock()
	defer c.apply.Unlock()
	c.setRevision(rev)
	c.hub.publish(&Event{Type: Progress, Rev: c.rev.Load()})
	c.handoff.sweep(rev)
}

// sink decodes the changes the mirror hands over into their informers;
// resources without one are skipped undecoded.
type sink struct{ c *Cache }

func (s sink) Upsert(key string, kv *datastore.KeyValue) {
	res, _, ok := splitKey(key)
	st := s.c.feed[res]
	if !ok || st == nil {
		return
	}
	cur, old, had, ok := s.c.put(st, kv)
	if !ok || s.c.listing {
		return
	}
	e := &Event{Type: Added, Resource: st.res, cur: cur, Rev: kv.ModRevision}
	if had {
		e.Type, e.prev = Modified, old
	}
	s.c.hub.publish(e)
}

func (s sink) Remove(key string) {
	res, obj, ok := splitKey(key)
	st := s.c.feed[res]
	if !ok || st == nil {
		return
	}
	last, had := st.remove(obj)
	if !had || s.c.listing {
		return
	}
	s.c.hub.publish(&Event{Type: Deleted, Resource: st.res, prev: last, Rev: s.c.evRev})
}

// put applies a stored object to st: kept undecoded while no handler
// follows st (lazy.go), otherwise the object the registry offered for this
// revision (handoff.go) or, without one, decoded at once, only the
// sections that changed since the revision held (api.DecodeStoredReusing).
// ok is false when it cannot be decoded (the version is ignored).
func (c *Cache) put(st *state, kv *datastore.KeyValue) (cur, old ref, had, ok bool) {
	key := strings.TrimPrefix(kv.Key, st.prefix)
	handed := c.handoff.take(kv.Key, kv.Value, kv.ModRevision)
	if st.quiet() {
		cell := &cell{res: st.res, key: kv.Key, log: c.log, data: kv.Value, rev: kv.ModRevision}
		old, had = st.stash(key, cell)
		return ref{c: cell}, old, had, true
	}
	prev, prevSecs := st.held(key)
	obj, secs, err := c.objectOf(st, kv, handed, prev, prevSecs)
	if err != nil {
		c.log.Warn("cannot decode stored object; ignoring this version", "key", kv.Key, "rev", kv.ModRevision, "err", err)
		return ref{}, ref{}, false, false
	}
	o, had := st.upsert(key, obj, secs)
	return ref{obj: obj}, ref{obj: o}, had, true
}

// objectOf is the object of kv: the one handed over for it, if any,
// decoded otherwise.
func (c *Cache) objectOf(st *state, kv *datastore.KeyValue, handed *Offered, prev api.Object, prevSecs *api.Sections) (api.Object, *api.Sections, error) {
	if handed == nil {
		return api.DecodeStoredReusing(st.res, kv.Value, kv.ModRevision, prev, prevSecs)
	}
	obj, secs := api.AdoptStored(st.res, handed.obj, handed.secs, kv.ModRevision, prev, prevSecs)
	if c.check != nil {
		decoded, _, _ := api.DecodeStoredReusing(st.res, kv.Value, kv.ModRevision, prev, prevSecs)
		c.check(kv.Key, obj, decoded)
	}
	return obj, secs, nil
}

// followLate follows the resource of an informer asked for after Start
// with a follower of its own. Called with c.mu held.
func (c *Cache) followLate(st *state) {
	prefix := st.prefix
	ls := &lateSink{c: c, st: st}
	ls.mirror = listwatch.NewMirror(prefix, ls)
	f := listwatch.New(c.store, prefix, ls, listwatch.Config{Logger: c.log.With("resource", st.res.Name)})
	f.Go(c.ctx)
	c.late = append(c.late, f)
}

// lateSink feeds one informer from its own follower.
type lateSink struct {
	c      *Cache
	st     *state
	mirror *listwatch.Mirror
}

func (l *lateSink) OnReplace(ctx context.Context, list *listwatch.List) error {
	l.st.apply.Lock()
	err := l.mirror.OnReplace(ctx, list)
	l.st.apply.Unlock()
	if err == nil {
		l.st.markSynced()
	}
	return err
}

func (l *lateSink) OnEvent(ctx context.Context, ev *datastore.Event) {
	l.st.apply.Lock()
	defer l.st.apply.Unlock()
	l.mirror.OnEvent(ctx, ev)
}

func (l *lateSink) Upsert(_ string, kv *datastore.KeyValue) { l.c.put(l.st, kv) }

func (l *lateSink) Remove(key string) { l.st.remove(key) }
