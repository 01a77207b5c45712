package replicaset

import (
	"sync"
	"time"
)

// expectationTTL is how long a sync's writes may stay unobserved before
// the controller acts again anyway (a lost watch event must not stall a
// ReplicaSet for ever).
const expectationTTL = 5 * time.Minute

// expectations remember, per ReplicaSet key, the pod creations and
// deletions a sync issued that the cache has not shown yet. While any are
// outstanding the controller does not create or delete for that
// ReplicaSet, so a lagging cache never makes it act twice on one gap.
// Creations are counted; deletions are tracked by pod key, because a pod
// may be seen going (deletionTimestamp) and then gone, and must count once.
type expectations struct {
	now func() time.Time
	ttl time.Duration

	mu  sync.Mutex
	all map[string]*expectation
}

type expectation struct {
	adds int
	dels map[string]struct{}
	at   time.Time
}

func newExpectations(now func() time.Time, ttl time.Duration) *expectations {
	return &expectations{now: now, ttl: ttl, all: map[string]*expectation{}}
}

// satisfied reports whether key may act: nothing is outstanding, or what is
// has waited longer than the TTL.
func (e *expectations) satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.all[key]
	if !ok || (x.adds <= 0 && len(x.dels) == 0) {
		return true
	}
	return e.now().Sub(x.at) > e.ttl
}

// expectCreations replaces key's record: n pods are about to be created.
func (e *expectations) expectCreations(key string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all[key] = &expectation{adds: n, at: e.now()}
}

// expectDeletions replaces key's record: the pods named are about to go.
func (e *expectations) expectDeletions(key string, podKeys []string) {
	dels := make(map[string]struct{}, len(podKeys))
	for _, k := range podKeys {
		dels[k] = struct{}{}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all[key] = &expectation{dels: dels, at: e.now()}
}

// creationsObserved lowers key's outstanding creations by n: pods seen in
// the cache, or creations that failed or were never tried.
func (e *expectations) creationsObserved(key string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.all[key]; ok && x.adds > 0 {
		x.adds = max(x.adds-n, 0)
	}
}

// deletionObserved marks podKey's deletion as seen (or as failed).
func (e *expectations) deletionObserved(key, podKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.all[key]; ok {
		delete(x.dels, podKey)
	}
}

// forget drops key's record (its ReplicaSet is gone).
func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.all, key)
}
