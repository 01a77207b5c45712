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
	obj, ok := s.objs[key]
	if !ok {
		return nil, nil
	}
	return obj, s.secs[key]
}

// upsert puts obj in under key (its KeyOf), with the fingerprints of the
// value it was decoded from (nil: none), and returns the object it
// replaced, if any.
func (s *state) upsert(key string, obj api.Object, secs *api.Sections) (old api.Object, had bool) {
	s.mu.Lock()
	s.settleKeyLocked(key)
	old, had = s.objs[key]
	if had {
		s.reindex(key, s.vals[key], obj)
	} else {
		s.index(key, obj)
	}
	s.objs[key] = obj
	if secs != nil {
		s.secs[key] = secs
	} else {
		delete(s.secs, key)
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
	old, had := s.objs[key]
	if had {
		s.unindex(key)
		delete(s.objs, key)
		delete(s.secs, key)
	}
	handlers := s.handlers
	s.mu.Unlock()
	if !had {
		return ref{}, false
	}
	for _, h := range handlers {
		if h.OnDelete != nil {
			h.OnDelete(old)
		}
	}
	return ref{obj: old}, true
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
	for _, o := range s.objs {
		objs = append(objs, o)
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
	s.indexes[ix.name] = map[string]map[string]struct{}{}
	for key, obj := range s.objs {
		vals := ix.fn(obj)
		for _, v := range vals {
			s.addToIndex(ix.name, v, key)
		}
		s.vals[key] = setValues(s.vals[key], ix.name, vals)
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

// The values each index holds an object under are kept with its key
// (state.vals), so an update calls each index function on the new object
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

func (s *state) index(key string, obj api.Object) {
	ix := make([]indexed, 0, len(s.indexers))
	for i := range s.indexers {
		name, vals := s.indexers[i].name, s.indexers[i].fn(obj)
		for _, v := range vals {
			s.addToIndex(name, v, key)
		}
		ix = append(ix, indexed{name: name, vals: vals})
	}
	s.vals[key] = ix
}

// reindex moves key, held under ix (its entry in s.vals), from its index
// values to obj's, touching only the indexes whose values changed (most
// updates change none: a status write keeps a pod's namespace, owners and
// node, and then nothing is allocated).
func (s *state) reindex(key string, ix []indexed, obj api.Object) {
	changed := false
	for i := range s.indexers {
		idxr := &s.indexers[i]
		was := valuesOf(ix, idxr.name)
		if idxr.holds(obj, was) {
			continue
		}
		is := idxr.fn(obj)
		idx := s.indexes[idxr.name]
		for _, v := range was {
			s.removeFromIndex(idx, v, key)
		}
		for _, v := range is {
			s.addToIndex(idxr.name, v, key)
		}
		ix, changed = setValues(ix, idxr.name, is), true
	}
	if changed {
		s.vals[key] = ix
	}
}

func (s *state) addToIndex(name, value, key string) {
	idx := s.indexes[name]
	set := idx[value]
	if set == nil {
		set = map[string]struct{}{}
		idx[value] = set
	}
	set[key] = struct{}{}
}

// unindex takes key out of every index.
func (s *state) unindex(key string) {
	for _, e := range s.vals[key] {
		idx := s.indexes[e.name]
		for _, v := range e.vals {
			s.removeFromIndex(idx, v, key)
		}
	}
	delete(s.vals, key)
}

func (s *state) removeFromIndex(idx map[string]map[string]struct{}, value, key string) {
	delete(idx[value], key)
	if len(idx[value]) == 0 {
		delete(idx, value)
	}
}
