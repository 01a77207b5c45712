package controllers

import (
	"container/heap"
	"sync"
	"time"
)

// Queue is a work queue of keys: a key queued several times before a
// worker takes it is processed once; a key is never processed by two
// workers at once (re-added while in process, it is queued again when the
// worker calls Done); AddRateLimited delays a key by a per-key exponential
// back-off that Forget resets.
type Queue struct {
	base, max time.Duration

	mu         sync.Mutex
	cond       *sync.Cond
	order      []string
	dirty      map[string]bool
	processing map[string]bool
	failures   map[string]int
	waiting    waitHeap
	waitingAt  map[string]time.Time
	timer      *time.Timer
	shutdown   bool
	now        func() time.Time
}

// NewQueue makes a queue whose back-off starts at base and doubles per
// failure up to max.
func NewQueue(base, max time.Duration) *Queue {
	q := &Queue{base: base, max: max, dirty: map[string]bool{}, processing: map[string]bool{},
		failures: map[string]int{}, waitingAt: map[string]time.Time{}, now: time.Now}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Add queues key unless it is already queued.
func (q *Queue) Add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(key)
}

func (q *Queue) addLocked(key string) {
	if q.shutdown || q.dirty[key] {
		return
	}
	q.dirty[key] = true
	if q.processing[key] {
		return // Done queues it again
	}
	q.order = append(q.order, key)
	q.cond.Signal()
}

// AddAfter queues key once d has passed (at once when d <= 0). Of several
// pending delays for one key, the earliest wins.
func (q *Queue) AddAfter(key string, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutdown {
		return
	}
	if d <= 0 {
		q.addLocked(key)
		return
	}
	at := q.now().Add(d)
	if cur, ok := q.waitingAt[key]; ok && !at.Before(cur) {
		return
	}
	q.waitingAt[key] = at
	heap.Push(&q.waiting, waitItem{key: key, at: at})
	q.armLocked()
}

// AddRateLimited queues key after its back-off, which then doubles.
func (q *Queue) AddRateLimited(key string) {
	q.mu.Lock()
	n := q.failures[key]
	q.failures[key] = n + 1
	q.mu.Unlock()
	d := q.base
	for i := 0; i < n && d < q.max; i++ {
		d *= 2
	}
	q.AddAfter(key, min(d, q.max))
}

// Forget resets key's back-off.
func (q *Queue) Forget(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.failures, key)
}

// NumRequeues is how many times key has been re-queued since its last Forget.
func (q *Queue) NumRequeues(key string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.failures[key]
}

// Get blocks until a key is ready and marks it in process; shutdown is true
// once the queue is shut down and drained of ready keys.
func (q *Queue) Get() (key string, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.order) == 0 && !q.shutdown {
		q.cond.Wait()
	}
	if len(q.order) == 0 {
		return "", true
	}
	key, q.order = q.order[0], q.order[1:]
	delete(q.dirty, key)
	q.processing[key] = true
	return key, false
}

// Done ends the processing of key; if it was added meanwhile, it is queued.
func (q *Queue) Done(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, key)
	if q.dirty[key] {
		q.order = append(q.order, key)
		q.cond.Signal()
	}
}

// Len is the number of keys ready to be processed.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.order)
}

// ShutDown stops accepting keys and wakes every Get.
func (q *Queue) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutdown = true
	if q.timer != nil {
		q.timer.Stop()
	}
	q.cond.Broadcast()
}
