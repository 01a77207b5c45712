package informer

import (
	"log/slog"
	"sync"

	"github.com/bramble-edge/bramble/api"
)

// A resource nobody in the process follows (its informer has no handlers)
// is not decoded as it changes: its informer keeps each changed object's
// stored value and revision, and decodes it when it is first read (Get,
// List, ByIndex, a handler added, a watcher given the change), once: the
// decoded object then takes the value's place. Events, written once per
// pod scheduled and read by nobody in the process, were a quarter of the
// cache's decodes.
//
// A state's keys are in objs (decoded) or in pending (not yet), never in
// both; Len counts both. Handlers change only under the apply lock, and a
// handler added settles every pending value first, so a state with
// handlers has nothing pending.

// cell is one stored value waiting to be decoded, shared by the informer
// and the watchers' event of that change: whoever reads it first decodes
// it, for all.
type cell struct {
	res *api.Resource
	key string
	log *slog.Logger

	once     sync.Once
	data     []byte // the stored value; dropped once decoded
	rev      int64
	prev     api.Object    // the object it replaces, if decoded: its sections may be reused
	prevSecs *api.Sections // prev's fingerprints

	obj  api.Object // nil when the value cannot be decoded
	secs *api.Sections
}

// decode decodes the value once; obj is nil when it cannot be decoded,
// which is logged once (as an eager decode's failure is).
func (c *cell) decode() (api.Object, *api.Sections) {
	c.once.Do(func() {
		obj, secs, err := api.DecodeStoredReusing(c.res, c.data, c.rev, c.prev, c.prevSecs)
		if err != nil {
			c.log.Warn("cannot decode stored object; ignoring this version", "key", c.key, "rev", c.rev, "err", err)
		} else {
			c.obj, c.secs = obj, secs
		}
		c.data, c.prev, c.prevSecs = nil, nil, nil
	})
	return c.obj, c.secs
}

// ref is an object held decoded, or a cell to decode when asked.
type ref struct {
	obj api.Object
	c   *cell
}

// get is the object, decoding it if need be; nil when there is none or
// it cannot be decoded.
func (r ref) get() api.Object {
	if r.c != nil {
		obj, _ := r.c.decode()
		return obj
	}
	return r.obj
}

// quiet reports whether no handler follows s: its changes may wait to be
// decoded. Callers hold the apply lock, under which handlers change.
func (s *state) quiet() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.handlers) == 0
}

// stash keeps c as key's newest value, undecoded, and returns what it
// replaces, if anything.
func (s *state) stash(key string, c *cell) (old ref, had bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pending[key]; ok {
		s.pending[key] = c
		return ref{c: p}, true
	}
	s.pending[key] = c
	e := s.objs[key]
	if e == nil {
		return ref{}, false
	}
	c.prev, c.prevSecs = e.obj, e.secs
	s.unindex(key, e)
	delete(s.objs, key)
	return ref{obj: e.obj}, true
}

// settle decodes every pending value into the informer.
func (s *state) settle() {
	s.mu.RLock()
	n := len(s.pending)
	s.mu.RUnlock()
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleAllLocked()
}

// settleAllLocked decodes every pending value into the informer. Called
// with s.mu held.
func (s *state) settleAllLocked() {
	for key := range s.pending {
		s.settleKeyLocked(key)
	}
}

// settleKeyLocked decodes key's pending value, if it has one, into the
// informer; one that cannot be decoded leaves key absent. Called with
// s.mu held.
func (s *state) settleKeyLocked(key string) {
	c, ok := s.pending[key]
	if !ok {
		return
	}
	delete(s.pending, key)
	obj, secs := c.decode()
	if obj == nil {
		return
	}
	e := &entry{obj: obj, secs: secs}
	s.objs[key] = e
	s.index(key, e)
}

// read runs fn on s's objects with every pending value decoded and no
// change applied meanwhile.
func (s *state) read(fn func()) {
	s.mu.RLock()
	if len(s.pending) == 0 {
		defer s.mu.RUnlock()
		fn()
		return
	}
	s.mu.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleAllLocked()
	fn()
}

// getKey is get of key given as bytes, which only a pending value's
// decode copies.
func (s *state) getKey(key []byte) (api.Object, bool) {
	s.mu.RLock()
	_, lazy := s.pending[string(key)]
	obj, ok := s.objs[string(key)].object() // read under the lock: an update changes the entry
	s.mu.RUnlock()
	if !lazy {
		return obj, ok
	}
	return s.get(string(key))
}

// get is key's object, decoding it if it is pending.
func (s *state) get(key string) (api.Object, bool) {
	s.mu.RLock()
	_, lazy := s.pending[key]
	obj, ok := s.objs[key].object() // read under the lock: an update changes the entry
	s.mu.RUnlock()
	if !lazy {
		return obj, ok
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleKeyLocked(key)
	return s.objs[key].object()
}

// object is e's object; false when e is nil (nothing held).
func (e *entry) object() (api.Object, bool) {
	if e == nil {
		return nil, false
	}
	return e.obj, true
}
