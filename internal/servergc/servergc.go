// Package servergc is the server process's collector policy: the GC
// percent follows the live heap, checked after every collection, and a
// soft memory limit bounds the larger heap goal. `bramble server` applies
// it, and so do the in-process clusters the benchmarks run, so that they
// measure the server as it runs.
package servergc

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/bramble-edge/bramble/internal/meminfo"
)

// The policy, unless GOGC is set. An idle server keeps about 3.5 MiB of
// live heap and Go's default (100) keeps its idle memory within budget. A
// working cluster's live heap is larger (100 nodes and 1,000 pods: 12-27
// MiB; 1,000 connected agents: ~75 MiB, mostly per-connection state), and
// at 100 each collection marks all of it once the heap has merely doubled:
// a 1,000-pod Deployment's rollout spent a fifth of the server's CPU
// collecting. From BigHeap of live heap the collector runs at
// BigGCPercent, about half as often, for a heap goal of three times the
// live heap instead of two; under SmallHeap it is back at GCPercent. The
// memory limit (unless GOMEMLIMIT is set) makes it collect harder again
// before the heap passes a share of the machine's memory.
const (
	GCPercent    = 100
	BigGCPercent = 200
	BigHeap      = 8 << 20 // live heap from which BigGCPercent applies
	SmallHeap    = 6 << 20 // and below which it no longer does
)

// For is the GC percent for a live heap of live bytes, given the one in
// force (the band between the two thresholds keeps it).
func For(live uint64, now int) int {
	switch {
	case live >= BigHeap:
		return BigGCPercent
	case live < SmallHeap:
		return GCPercent
	}
	return now
}

// MemoryLimit is the soft limit the server sets: half the machine's memory
// (0 when it cannot be read: no limit).
func MemoryLimit() int64 { return int64(totalMemory() / 2) }

// Tune applies the policy until ctx ends and reports whether it follows
// the heap; GOGC in the environment turns that off, GOMEMLIMIT keeps the
// limit it sets. The policy is the process's: calls made while another's
// context is live share its follower.
func Tune(ctx context.Context, log *slog.Logger) bool {
	if os.Getenv("GOMEMLIMIT") == "" {
		if limit := MemoryLimit(); limit > 0 {
			debug.SetMemoryLimit(limit)
		}
	}
	if os.Getenv("GOGC") != "" {
		return false
	}
	process.start(ctx, log)
	return true
}

// process is the one follower of this process, shared by the Tune calls
// whose contexts are live; the last to end stops it.
var process tuner

type tuner struct {
	mu    sync.Mutex
	users int
	f     *follower
	stop  context.CancelFunc
}

func (t *tuner) start(ctx context.Context, log *slog.Logger) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.users++
	if t.users == 1 {
		fctx, stop := context.WithCancel(context.Background())
		t.stop = stop
		t.f = &follower{percent: GCPercent, live: liveHeap, log: log}
		t.f.step() // a heap already past the threshold needs no collection to be seen
		afterEachGC(fctx, t.f.step)
	}
	context.AfterFunc(ctx, t.release)
}

func (t *tuner) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.users--
	if t.users == 0 {
		t.stop()
		t.f.finish()
	}
}

// follower sets the GC percent for the live heap.
type follower struct {
	mu       sync.Mutex // cleanups may run concurrently
	percent  int
	live     func() uint64
	log      *slog.Logger
	finished bool
}

// step reads the live heap and changes the GC percent if the policy says so.
func (f *follower) step() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return
	}
	live := f.live()
	if next := For(live, f.percent); next != f.percent {
		debug.SetGCPercent(next)
		f.log.Debug("garbage collector target changed", "gogc", next, "live_heap_bytes", live)
		f.percent = next
	}
}

// finish ends the policy: the GC percent is back at GCPercent and a step
// still under way changes nothing.
func (f *follower) finish() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished = true
	if f.percent != GCPercent {
		debug.SetGCPercent(GCPercent)
		f.percent = GCPercent
	}
}

// sentinel is an allocation made only to become garbage: its cleanup runs
// after the collection that found it unreachable. It holds a pointer so
// that it is never one of the tiny allocator's shared blocks.
type sentinel struct{ _ *byte }

// afterEachGC calls fn after every collection until ctx ends: each
// sentinel's cleanup calls fn and arms the next one. The live heap only
// changes at a collection, so nothing is polled in between.
func afterEachGC(ctx context.Context, fn func()) {
	var arm func()
	arm = func() {
		runtime.AddCleanup(new(sentinel), func(struct{}) {
			if ctx.Err() != nil {
				return
			}
			fn()
			arm()
		}, struct{}{})
	}
	arm()
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// totalMemory is the machine's memory in bytes from /proc/meminfo (0 where
// there is none).
func totalMemory() uint64 {
	f, err := meminfo.Read(meminfo.Path, meminfo.Total)
	if err != nil {
		return 0
	}
	return f[meminfo.Total]
}
