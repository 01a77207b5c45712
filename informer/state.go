package informer

import (
	"slices"

	"github.com/bramble-edge/bramble/api"
)

// The feeding side of an informer: changes applied, then handlers told.
// Callers hold the state's apply lock.

// held is the object of key and its stored sections' fingerprints (nil
// when its kind keeps none).
func (s *state) held(key string) (api.Object, *api.Sections) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.objs[key]
	if e == nil {
		return nil, nil
	}
	return e.obj, e.secs
}

// upsert puts obj in under key (its KeyOf), with the fingerprints of the
// value it was decoded from (nil: none), and returns the object it
// replaced, if any. An update changes key's entry in place: one map
// lookup, and no index touched whose values stay.
func (s *state) upsert(key string, obj api.Object, secs *api.Sections) (old api.Object, had bool) {
	s.mu.Lock()
	s.settleKeyLocked(key)
	e := s.objs[key]
	if had = e != nil; had {
		old, e.obj, e.secs = e.obj, obj, secs
		s.reindex(key, e)
	} else {
		e = &entry{obj: obj, secs: secs}
		s.objs[key] = e
		s.index(key, e)
	}
	handlers := s.handlers
	s.mu.Unlock()
	for _, h := range handlers {
		switch {
		case had && h.OnUpdate != nil:
			h.OnUpdate(old, obj)
		case !had && h.OnAdd != nil:
			h.OnAdd(obj)
		}
	}
	return old, had
}

// remove takes the object of key out and returns it, if it was there: a
// pending value stays undecoded (no handler follows a state that has one).
func (s *state) remove(key string) (last ref, had bool) {
	s.mu.Lock()
	if c, ok := s.pending[key]; ok {
		delete(s.pending, key)
		s.mu.Unlock()
		return ref{c: c}, true
	}
	e := s.objs[key]
	if e != nil {
		s.unindex(key, e)
		delete(s.objs, key)
	}
	handlers := s.handlers
	s.mu.Unlock()
	if e == nil {
		return ref{}, false
	}
	for _, h := range handlers {
		if h.OnDelete != nil {
			h.OnDelete(e.obj)
		}
	}
	return ref{obj: e.obj}, true
}

// addHandler registers h and replays the objects held to its OnAdd, with
// no change applied in between; the returned func unregisters it.
func (s *state) addHandler(h Handler) (remove func()) {
	reg := &h
	s.apply.Lock()
	defer s.apply.Unlock()
	s.settle()
	s.mu.Lock()
	objs := make([]api.Object, 0, len(s.objs))
	for _, e := range s.objs {
		objs = append(objs, e.obj)
	}
	s.handlers = append(slices.Clip(s.handlers), reg)
	s.mu.Unlock()
	if h.OnAdd != nil {
		for _, o := range objs {
			h.OnAdd(o)
		}
	}
	return func() {
		s.apply.Lock()
		defer s.apply.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.handlers = slices.DeleteFunc(slices.Clone(s.handlers), func(r *Handler) bool { return r == reg })
	}
}

// addIndex adds (or replaces) an index and fills it from the objects held.
func (s *state) addIndex(name string, fn IndexFunc) { s.addIndexer(indexer{name: name, fn: fn}) }

// addIndexer adds (or replaces) the index of ix and fills it from the
// objects held.
func (s *state) addIndexer(ix indexer) {
	s.settle()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.indexers, func(e indexer) bool { return e.name == ix.name }); i >= 0 {
		s.indexers[i] = ix
	} else {
		s.indexers = append(s.indexers, ix)
	}
	s.indexes[ix.name] = map[string]map[string]*entry{}
	for key, e := range s.objs {
		vals := ix.fn(e.obj)
		for _, v := range vals {
			s.addToIndex(ix.name, v, key, e)
		}
		e.vals = setValues(e.vals, ix.name, vals)
	}
}

// indexer is one index: its name, its function and, for the standard
// indexes, a check that obj is indexed under exactly vals made without
// calling fn (each call allocates), which is what most updates ask.
type indexer struct {
	name string
	fn   IndexFunc
	same func(obj api.Object, vals []string) bool // nil: compare with fn's
}

// holds reports whether obj's values in the index are vals.
func (ix *indexer) holds(obj api.Object, vals []string) bool {
	if ix.same != nil {
		return ix.same(obj, vals)
	}
	return slices.Equal(vals, ix.fn(obj))
}

// The values each index holds an object under are kept in its entry
// (entry.vals), so an update calls each index function on the new object
// only, and a removal on none: a pod's six indexes were called twice per
// update, each call allocating.

// indexed is the values one index holds an object under.
type indexed struct {
	name string
	vals []string
}

// valuesOf is the values of index name in ix.
func valuesOf(ix []indexed, name string) []string {
	for _, e := range ix {
		if e.name == name {
			return e.vals
		}
	}
	return nil
}

// setValues is ix with index name's values set to vals.
func setValues(ix []indexed, name string, vals []string) []indexed {
	for i := range ix {
		if ix[i].name == name {
			ix[i].vals = vals
			return ix
		}
	}
	return append(ix, indexed{name: name, vals: vals})
}

// index puts e, new under key, in every index.
func (s *state) index(key string, e *entry) {
	e.vals = make([]indexed, 0, len(s.indexers))
	for i := range s.indexers {
		name, vals := s.indexers[i].name, s.indexers[i].fn(e.obj)
		for _, v := range vals {
			s.addToIndex(name, v, key, e)
		}
		e.vals = append(e.vals, indexed{name: name, vals: vals})
	}
}

// reindex moves key's entry e, whose object was just replaced, from the
// values it is indexed under to its new object's, touching only the
// indexes whose values changed (most updates change none: a status write
// keeps a pod's namespace, owners and node, and then nothing is
// allocated).
func (s *state) reindex(key string, e *entry) {
	for i := range s.indexers {
		ix := &s.indexers[i]
		was := valuesOf(e.vals, ix.name)
		if ix.holds(e.obj, was) {
			continue
		}
		is := ix.fn(e.obj)
		idx := s.indexes[ix.name]
		for _, v := range was {
			s.removeFromIndex(idx, v, key)
		}
		for _, v := range is {
			s.addToIndex(ix.name, v, key, e)
		}
		e.vals = setValues(e.vals, ix.name, is)
	}
}

func (s *state) addToIndex(name, value, key string, e *entry) {
	idx := s.indexes[name]
	set := idx[value]
	if set == nil {
		set = map[string]*entry{}
		idx[value] = set
	}
	set[key] = e
}

// unindex takes key, held as e, out of every index.
func (s *state) unindex(key string, e *entry) {
	for _, ix := range e.vals {
		idx := s.indexes[ix.name]
		for _, v := range ix.vals {
			s.removeFromIndex(idx, v, key)
		}
	}
	e.vals = nil
}

func (s *state) removeFromIndex(idx map[string]map[string]*entry, value, key string) {
	set := idx[value]
	delete(set, key)
	if len(set) == 0 {
		delete(idx, value)
	}
}
