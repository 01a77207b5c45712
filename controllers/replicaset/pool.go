package replicaset

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultWorkers bounds how many of the package's pod creates and deletes
// run at once, over all ReplicaSets and controllers of the process.
const DefaultWorkers = 64

// workerIdle is how long a worker of the pool waits for another call
// before its goroutine ends.
const workerIdle = 10 * time.Second

// pool runs calls on long-lived goroutines, at most size at once. A pod
// create blocks deep in the datastore's group commit; a goroutine started
// per call grew its stack from the minimum each time, and copying stacks
// was a visible share of the server's CPU. A worker keeps its stack from
// one call to the next.
type pool struct {
	slots chan struct{} // one token per running call
	idle  chan func()   // idle workers receive their next call here

	started atomic.Int64 // workers started, for tests
}

func newPool(size int) *pool {
	return &pool{slots: make(chan struct{}, max(size, 1)), idle: make(chan func())}
}

// shared is the pool SlowStart and deletePods run their calls on.
var shared = newPool(DefaultWorkers)

// run calls fn on a worker, waiting first while size calls are running.
func (p *pool) run(fn func()) {
	p.slots <- struct{}{}
	select {
	case p.idle <- fn:
	default:
		p.started.Add(1)
		go p.work(fn)
	}
}

// work runs fn and then the calls handed to it until it has been idle for
// workerIdle.
func (p *pool) work(fn func()) {
	var t *time.Timer
	for {
		fn()
		<-p.slots
		if t == nil {
			t = time.NewTimer(workerIdle)
		} else {
			t.Reset(workerIdle)
		}
		select {
		case fn = <-p.idle:
		case <-t.C:
			return
		}
	}
}

// parallel runs fn(0) ... fn(n-1) on the pool and returns their errors.
func (p *pool) parallel(n int, fn func(i int) error) []error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	wg.Add(n)
	for i := range n {
		p.run(func() {
			defer wg.Done()
			if err := fn(i); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errs
}
