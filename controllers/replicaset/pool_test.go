package replicaset

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestPoolBoundsAndCollects runs more calls than the pool has workers: all
// run, never more than size at once, and every failure is returned.
func TestPoolBoundsAndCollects(t *testing.T) {
	const size, n = 4, 100
	p := newPool(size)
	var running, peak, calls atomic.Int32
	errOdd := errors.New("odd")
	errs := p.parallel(n, func(i int) error {
		now := running.Add(1)
		defer running.Add(-1)
		for {
			old := peak.Load()
			if now <= old || peak.CompareAndSwap(old, now) {
				break
			}
		}
		calls.Add(1)
		if i%2 == 1 {
			return errOdd
		}
		return nil
	})
	if calls.Load() != n {
		t.Errorf("got %d calls, want %d", calls.Load(), n)
	}
	if peak.Load() > size {
		t.Errorf("got %d calls at once, want at most %d", peak.Load(), size)
	}
	if len(errs) != n/2 {
		t.Errorf("got %d errors, want %d", len(errs), n/2)
	}
}

// TestPoolRunsABatchAtOnce: a batch no larger than the pool runs all its
// calls at the same time (slow start's batches are concurrent), and a
// second batch reuses the first one's workers.
func TestPoolRunsABatchAtOnce(t *testing.T) {
	const size = 8
	p := newPool(size)
	for range 3 {
		var all sync.WaitGroup
		all.Add(size)
		errs := p.parallel(size, func(int) error {
			all.Done()
			all.Wait() // returns only once every call of the batch is running
			return nil
		})
		if len(errs) != 0 {
			t.Fatalf("got errors %v", errs)
		}
	}
	n := p.started.Load()
	// A worker may be between two calls when the next batch starts, so a
	// few new ones may start; three batches on fresh goroutines would be 24.
	if n > 2*size {
		t.Errorf("got %d goroutines for 3 batches of %d, want the workers reused", n, size)
	}
}

// BenchmarkBatch runs batches of 256 calls that, like a pod create, grow
// a deep stack (96 frames, 24 KiB) and then wait for all of the batch (the group commit): on a
// goroutine each (as before the pool) and on the pool.
func BenchmarkBatch(b *testing.B) {
	const n, frames = 256, 96
	call := func(arrived *sync.WaitGroup) func(int) error {
		return func(int) error {
			deep(frames, arrived)
			return nil
		}
	}
	b.Run("goroutine-each", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var arrived sync.WaitGroup
			arrived.Add(n)
			eachOnItsOwn(n, call(&arrived))
		}
	})
	for _, size := range []int{64, n} {
		b.Run(fmt.Sprintf("pool-%d", size), func(b *testing.B) {
			p := newPool(size)
			b.ReportAllocs()
			for b.Loop() {
				var arrived sync.WaitGroup
				arrived.Add(min(n, size))
				_ = p.parallel(n, func(i int) error {
					// With fewer workers than calls, only the first wave
					// waits for each other; the rest go on alone.
					if i < size {
						deep(frames, &arrived)
						return nil
					}
					deep(frames, nil)
					return nil
				})
			}
		})
	}
}

// eachOnItsOwn is the former parallel: a goroutine per call.
func eachOnItsOwn(n int, fn func(int) error) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = fn(i)
		}()
	}
	wg.Wait()
}

// deep recurses depth frames of a quarter kilobyte, then marks itself arrived
// and waits for the others.
func deep(depth int, arrived *sync.WaitGroup) byte {
	var pad [256]byte
	pad[depth%len(pad)] = byte(depth)
	if depth == 0 {
		if arrived != nil {
			arrived.Done()
			arrived.Wait()
		}
		return pad[0]
	}
	return deep(depth-1, arrived) + pad[depth%len(pad)]
}
