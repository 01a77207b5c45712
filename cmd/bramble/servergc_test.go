package main

import (
	"context"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"testing"
)

func TestServerGCFor(t *testing.T) {
	for _, tt := range []struct {
		live uint64
		now  int
		want int
	}{
		{4 << 20, serverGCPercent, serverGCPercent}, // idle
		{serverBigHeap, serverGCPercent, serverBigGCPercent},
		{200 << 20, serverGCPercent, serverBigGCPercent},           // a fleet connected
		{14 << 20, serverBigGCPercent, serverBigGCPercent},         // in the band: kept
		{14 << 20, serverGCPercent, serverGCPercent},               // in the band: kept
		{serverSmallHeap - 1, serverBigGCPercent, serverGCPercent}, // the fleet left
	} {
		if got := serverGCFor(tt.live, tt.now); got != tt.want {
			t.Errorf("serverGCFor(%d MiB, %d) = %d, want %d", tt.live>>20, tt.now, got, tt.want)
		}
	}
}

// TestTuneServerMemory: the memory limit is set unless GOMEMLIMIT is; the
// environment's values are left as the runtime set them.
func TestTuneServerMemory(t *testing.T) {
	if totalMemory() == 0 {
		t.Fatal("no MemTotal in /proc/meminfo")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tt := range []struct {
		gogc, memlimit string
		wantLimit      int64
		wantFollow     bool
	}{
		{"", "", serverMemoryLimit(), true},
		{"200", "", serverMemoryLimit(), false}, // GOGC set: the runtime's
		{"", "1GiB", math.MaxInt64, true},       // GOMEMLIMIT set: left as the runtime set it
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		t.Setenv("GOGC", tt.gogc)
		t.Setenv("GOMEMLIMIT", tt.memlimit)
		ctx, cancel := context.WithCancel(context.Background())
		follows := tuneServerMemory(ctx, log)
		cancel()
		if follows != tt.wantFollow {
			t.Errorf("GOGC=%q: follows the heap %v, want %v", tt.gogc, follows, tt.wantFollow)
		}
		if got := debug.SetMemoryLimit(-1); got != tt.wantLimit {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: memory limit %d, want %d", tt.gogc, tt.memlimit, got, tt.wantLimit)
		}
	}
}

// TestHeapFollowerSetsGCPercent: the follower changes the process's GC
// percent as the live heap crosses the thresholds.
func TestHeapFollowerSetsGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(serverGCPercent))
	live := uint64(4 << 20)
	f := &heapFollower{percent: serverGCPercent, live: func() uint64 { return live }, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, step := range []struct {
		live uint64
		want int
	}{{4 << 20, serverGCPercent}, {100 << 20, serverBigGCPercent}, {14 << 20, serverBigGCPercent}, {8 << 20, serverGCPercent}} {
		live = step.live
		f.step()
		if got := debug.SetGCPercent(serverGCPercent); got != step.want {
			t.Errorf("live heap %d MiB: GC percent %d, want %d", step.live>>20, got, step.want)
		}
		debug.SetGCPercent(step.want) // as the follower left it
	}
}
