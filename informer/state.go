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

// upsert puts obj in, with the fingerprints of the value it was decoded
// from (nil: none), and returns the object it replaced, if any.
func (s *state) upsert(obj api.Object, secs *api.Sections) (old api.Object, had bool) {
	key := KeyOf(obj)
	s.mu.Lock()
	s.settleKeyLocked(key)
	old, had = s.objs[key]
	if had {
		s.reindex(key, old, obj)
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
		s.unindex(key, old)
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
func (s *state) addIndex(name string, fn IndexFunc) {
	s.settle()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.indexers[name] = fn
	s.indexes[name] = map[string]map[string]struct{}{}
	for key, obj := range s.objs {
		for _, v := range fn(obj) {
			s.addToIndex(name, v, key)
		}
	}
}

func (s *state) index(key string, obj api.Object) {
	for name, fn := range s.indexers {
		for _, v := range fn(obj) {
			s.addToIndex(name, v, key)
		}
	}
}

// reindex moves key from old's index values to obj's, touching only the
// indexes whose values changed (most updates change none: a status write
// keeps a pod's namespace, owners and node).
func (s *state) reindex(key string, old, obj api.Object) {
	for name, fn := range s.indexers {
		was, is := fn(old), fn(obj)
		if slices.Equal(was, is) {
			continue
		}
		idx := s.indexes[name]
		for _, v := range was {
			s.removeFromIndex(idx, v, key)
		}
		for _, v := range is {
			s.addToIndex(name, v, key)
		}
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

func (s *state) unindex(key string, obj api.Object) {
	for name, fn := range s.indexers {
		idx := s.indexes[name]
		for _, v := range fn(obj) {
			s.removeFromIndex(idx, v, key)
		}
	}
}

func (s *state) removeFromIndex(idx map[string]map[string]struct{}, value, key string) {
	delete(idx[value], key)
	if len(idx[value]) == 0 {
		delete(idx, value)
	}
}
