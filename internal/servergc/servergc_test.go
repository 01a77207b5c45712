package servergc

import (
	"context"
	"io"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	for _, tt := range []struct {
		live uint64
		now  int
		want int
	}{
		{3 << 20, GCPercent, GCPercent}, // idle
		{BigHeap, GCPercent, BigGCPercent},
		{200 << 20, GCPercent, BigGCPercent},         // a fleet connected
		{7 << 20, BigGCPercent, BigGCPercent},        // in the band: kept
		{7 << 20, GCPercent, GCPercent},              // in the band: kept
		{SmallHeap - 1, BigGCPercent, GCPercent},     // the fleet left
		{BigHeap - 1, GCPercent, GCPercent},          // not yet
		{SmallHeap, BigGCPercent, BigGCPercent},      // the band's floor keeps it
		{0, BigGCPercent, GCPercent},                 // nothing live
		{math.MaxUint64, BigGCPercent, BigGCPercent}, // no overflow
	} {
		if got := For(tt.live, tt.now); got != tt.want {
			t.Errorf("For(%d MiB, %d) = %d, want %d", tt.live>>20, tt.now, got, tt.want)
		}
	}
}

// TestTune: the memory limit is set unless GOMEMLIMIT is; the
// environment's values are left as the runtime set them.
func TestTune(t *testing.T) {
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
		{"", "", MemoryLimit(), true},
		{"200", "", MemoryLimit(), false}, // GOGC set: the runtime's
		{"", "1GiB", math.MaxInt64, true}, // GOMEMLIMIT set: left as the runtime set it
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		t.Setenv("GOGC", tt.gogc)
		t.Setenv("GOMEMLIMIT", tt.memlimit)
		ctx, cancel := context.WithCancel(context.Background())
		follows := Tune(ctx, log)
		cancel()
		if follows != tt.wantFollow {
			t.Errorf("GOGC=%q: follows the heap %v, want %v", tt.gogc, follows, tt.wantFollow)
		}
		if got := debug.SetMemoryLimit(-1); got != tt.wantLimit {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: memory limit %d, want %d", tt.gogc, tt.memlimit, got, tt.wantLimit)
		}
	}
}

// TestFollowerSetsGCPercent: the follower changes the process's GC
// percent as the live heap crosses the thresholds.
func TestFollowerSetsGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	live := uint64(3 << 20)
	f := &follower{percent: GCPercent, live: func() uint64 { return live }, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, step := range []struct {
		live uint64
		want int
	}{{3 << 20, GCPercent}, {100 << 20, BigGCPercent}, {7 << 20, BigGCPercent}, {4 << 20, GCPercent}} {
		live = step.live
		f.step()
		if got := debug.SetGCPercent(GCPercent); got != step.want {
			t.Errorf("live heap %d MiB: GC percent %d, want %d", step.live>>20, got, step.want)
		}
		debug.SetGCPercent(step.want) // as the follower left it
	}
}

// TestAfterEachGC: the hook runs after collections, and no more once its
// context has ended.
func TestAfterEachGC(t *testing.T) {
	var calls atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	afterEachGC(ctx, func() { calls.Add(1) })
	for want := int64(1); want <= 3; want++ {
		runtime.GC()
		waitFor(t, func() bool { return calls.Load() >= want }, "call %d after a collection", want)
	}
	cancel()
	runtime.GC() // runs the armed cleanup, which sees the context ended
	time.Sleep(50 * time.Millisecond)
	before := calls.Load()
	for range 3 {
		runtime.GC()
	}
	time.Sleep(100 * time.Millisecond)
	if got := calls.Load(); got != before {
		t.Fatalf("%d calls after the context ended", got-before)
	}
}

// TestTuneFollowsCollections: a live heap past BigHeap raises the GC
// percent at the next collection, without waiting for a poll, and the
// follower is shared by overlapping Tune calls.
func TestTuneFollowsCollections(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "1GiB") // leave the process's limit alone
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	ctx2, cancel2 := context.WithCancel(context.Background())
	Tune(ctx1, log)
	Tune(ctx2, log)
	cancel1() // the second keeps the follower running
	held := make([][]byte, 0, 64)
	for range cap(held) {
		held = append(held, make([]byte, (2*BigHeap)/64))
	}
	runtime.GC()
	waitFor(t, func() bool { return percent() == BigGCPercent }, "GC percent %d with %d MiB live", BigGCPercent, 2*BigHeap>>20)
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()
	waitFor(t, func() bool { return percent() == GCPercent }, "GC percent %d once the heap is freed", GCPercent)
	// Raised again, then the last user ends: the policy's percent goes with it.
	held = append(held, make([]byte, 2*BigHeap))
	runtime.GC()
	waitFor(t, func() bool { return percent() == BigGCPercent }, "GC percent %d with %d MiB live again", BigGCPercent, 2*BigHeap>>20)
	runtime.KeepAlive(held)
	cancel2()
	waitFor(t, func() bool { process.mu.Lock(); defer process.mu.Unlock(); return process.users == 0 }, "no users left")
	if got := percent(); got != GCPercent {
		t.Fatalf("GC percent %d after the last Tune ended, want %d", got, GCPercent)
	}
}

// percent reads the process's GC percent without setting it (which the
// follower could overtake).
func percent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

func waitFor(t *testing.T, ok func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5 s: "+format, args...)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}
