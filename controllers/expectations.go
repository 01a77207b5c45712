package controllers

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Expectations remember, per owner key, the pods a controller has created
// or deleted but the cache may not show yet. While any are outstanding,
// sync does not create or delete more: a lagging cache would otherwise
// make it create a second pod for a node, or delete one twice.
// An expectation is met when the cache shows it (looked up at sync time)
// or a pod event reports it; one older than timeout is given up on.
type Expectations struct {
	timeout time.Duration
	now     func() time.Time

	mu      sync.Mutex
	pending map[string]*pending
}

type pending struct {
	creates map[string]bool      // pod names created
	deletes map[string]types.UID // pod name -> UID deleted
	since   time.Time
}

// PodLookup reports the UID of the cached pod of that name, if any.
type PodLookup func(name string) (types.UID, bool)

// NewExpectations gives up on an expectation after timeout.
func NewExpectations(timeout time.Duration, now func() time.Time) *Expectations {
	return &Expectations{timeout: timeout, now: now, pending: map[string]*pending{}}
}

func (e *Expectations) entry(key string) *pending {
	p := e.pending[key]
	if p == nil {
		p = &pending{creates: map[string]bool{}, deletes: map[string]types.UID{}}
		e.pending[key] = p
	}
	p.since = e.now()
	return p
}

// ExpectCreate records that pod name was created for key.
func (e *Expectations) ExpectCreate(key, name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(key).creates[name] = true
}

// ExpectDelete records that pod name (uid) was deleted for key.
func (e *Expectations) ExpectDelete(key, name string, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(key).deletes[name] = uid
}

// Observed is called from pod events: an added pod meets a create, a
// deleted pod meets a delete. outstanding reports whether other creates
// or deletes of key are still unobserved.
func (e *Expectations) Observed(key, name string, deleted bool) (outstanding bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.pending[key]
	if p == nil {
		return false
	}
	if deleted {
		delete(p.deletes, name)
	} else {
		delete(p.creates, name)
	}
	return len(p.creates)+len(p.deletes) > 0
}

// Satisfied reports whether nothing is outstanding for key, first
// checking the outstanding expectations against the cache.
func (e *Expectations) Satisfied(key string, lookup PodLookup) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.pending[key]
	if p == nil {
		return true
	}
	for name := range p.creates {
		if _, ok := lookup(name); ok {
			delete(p.creates, name)
		}
	}
	for name, uid := range p.deletes {
		if got, ok := lookup(name); !ok || got != uid {
			delete(p.deletes, name)
		}
	}
	if len(p.creates)+len(p.deletes) == 0 || e.now().Sub(p.since) > e.timeout {
		delete(e.pending, key)
		return true
	}
	return false
}

// Forget drops everything recorded for key.
func (e *Expectations) Forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pending, key)
}

// CachedPods looks pods of namespace up in inf, for Satisfied. A
// terminating pod (a finalizer holds it) reports no UID: it was created,
// and its deletion counts as seen.
func CachedPods(inf *Informer, namespace string) PodLookup {
	return func(name string) (types.UID, bool) {
		o, ok := inf.Get(namespace, name)
		if !ok {
			return "", false
		}
		if o.GetDeletionTimestamp() != nil {
			return "", true
		}
		return o.GetUID(), true
	}
}
