package main

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/bramble-edge/bramble/internal/meminfo"
	"github.com/bramble-edge/bramble/internal/periodic"
)

// The server's collector policy, unless GOGC is set. An idle server keeps
// a few MiB of live heap and Go's default (100) keeps its idle memory
// within budget (200 would put it at the edge). A working cluster's live
// heap is larger (100 nodes and 1,000 pods: ~25 MiB; 1,000 connected
// agents: ~75 MiB, mostly per-connection state), each collection marks
// all of it, 10-13 % of the server's CPU; past serverBigHeap the
// collector runs at serverBigGCPercent, half as often, for a heap goal of
// three times the live heap instead of two. The memory limit (unless
// GOMEMLIMIT is set) makes it collect harder again before the heap passes
// a share of the machine's memory.
const (
	serverGCPercent    = 100
	serverBigGCPercent = 200
	serverBigHeap      = 16 << 20 // live heap from which serverBigGCPercent applies
	serverSmallHeap    = 12 << 20 // and below which it no longer does
	serverHeapPoll     = 10 * time.Second
)

// serverGCFor is the GC percent for a live heap of live bytes, given the
// one in force (the band between the two thresholds keeps it).
func serverGCFor(live uint64, now int) int {
	switch {
	case live >= serverBigHeap:
		return serverBigGCPercent
	case live < serverSmallHeap:
		return serverGCPercent
	}
	return now
}

// serverMemoryLimit is the soft limit the server sets: half the machine's
// memory (0 when it cannot be read: no limit).
func serverMemoryLimit() int64 { return int64(totalMemory() / 2) }

// tuneServerMemory applies the policy above until ctx ends and reports
// whether it follows the heap; GOGC in the environment turns that off,
// GOMEMLIMIT keeps the limit it sets.
func tuneServerMemory(ctx context.Context, log *slog.Logger) bool {
	if os.Getenv("GOMEMLIMIT") == "" {
		if limit := serverMemoryLimit(); limit > 0 {
			debug.SetMemoryLimit(limit)
		}
	}
	if os.Getenv("GOGC") != "" {
		return false
	}
	f := &heapFollower{percent: serverGCPercent, live: liveHeap, log: log}
	go periodic.Every(ctx, serverHeapPoll, f.step)
	return true
}

// heapFollower sets the GC percent for the live heap.
type heapFollower struct {
	percent int
	live    func() uint64
	log     *slog.Logger
}

// step reads the live heap and changes the GC percent if the policy says so.
func (f *heapFollower) step() {
	live := f.live()
	if next := serverGCFor(live, f.percent); next != f.percent {
		debug.SetGCPercent(next)
		f.log.Debug("garbage collector target changed", "gogc", next, "live_heap_bytes", live)
		f.percent = next
	}
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
