package controllers

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestQueueDeduplicatesAndSerialisesKeys(t *testing.T) {
	q := NewQueue(time.Millisecond, time.Second)
	q.Add("a")
	q.Add("a")
	q.Add("b")
	if got := q.Len(); got != 2 {
		t.Fatalf("Len after a, a, b: got %d, want 2", got)
	}
	key, _ := q.Get()
	if key != "a" {
		t.Fatalf("first key: got %q, want a", key)
	}
	q.Add("a") // in process: held back until Done
	if k, _ := q.Get(); k != "b" {
		t.Fatalf("second key: got %q, want b (a is in process)", k)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len while a is in process and re-added: got %d, want 0", got)
	}
	q.Done("a")
	if k, _ := q.Get(); k != "a" {
		t.Fatalf("after Done: got %q, want a again", k)
	}
}

func TestQueueBackOffDoublesAndForgetResets(t *testing.T) {
	q := NewQueue(10*time.Millisecond, 40*time.Millisecond)
	var waits []time.Duration
	for range 4 {
		start := time.Now()
		q.AddRateLimited("k")
		k, _ := q.Get()
		waits = append(waits, time.Since(start))
		q.Done(k)
	}
	for i, want := range []time.Duration{10, 20, 40, 40} {
		if w := waits[i]; w < want*time.Millisecond {
			t.Errorf("retry %d came after %v, want at least %v", i+1, w, want*time.Millisecond)
		}
	}
	if n := q.NumRequeues("k"); n != 4 {
		t.Errorf("NumRequeues: got %d, want 4", n)
	}
	q.Forget("k")
	if n := q.NumRequeues("k"); n != 0 {
		t.Errorf("NumRequeues after Forget: got %d, want 0", n)
	}
}

func TestQueueAddAfterKeepsEarliest(t *testing.T) {
	q := NewQueue(time.Millisecond, time.Second)
	q.AddAfter("k", time.Hour)
	q.AddAfter("k", 5*time.Millisecond)
	q.AddAfter("k", time.Hour)
	done := make(chan string)
	go func() { k, _ := q.Get(); done <- k }()
	select {
	case k := <-done:
		if k != "k" {
			t.Fatalf("got %q, want k", k)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a key delayed by 5ms was not ready after 5s")
	}
	q.Done("k")
	q.ShutDown()
	if _, shut := q.Get(); !shut {
		t.Fatal("Get after ShutDown: want shutdown")
	}
}

func TestRunWorkersRetriesAndStops(t *testing.T) {
	q := NewQueue(time.Millisecond, 10*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	var mu sync.Mutex
	active := map[string]bool{}
	overlap := false
	sync := func(ctx context.Context, key string) error {
		mu.Lock()
		if active[key] {
			overlap = true
		}
		active[key] = true
		mu.Unlock()
		defer func() { mu.Lock(); delete(active, key); mu.Unlock() }()
		if calls.Add(1) < 3 {
			return io.ErrUnexpectedEOF
		}
		return nil
	}
	stopped := make(chan struct{})
	go func() {
		RunWorkers(ctx, q, 4, slog.New(slog.NewTextHandler(io.Discard, nil)), sync)
		close(stopped)
	}()
	q.Add("x")
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("sync calls: got %d, want 3 (two failures retried, then success)", n)
	}
	if q.NumRequeues("x") != 0 {
		t.Fatalf("NumRequeues after success: got %d, want 0", q.NumRequeues("x"))
	}
	cancel()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("RunWorkers did not return after its context ended")
	}
	if overlap {
		t.Fatal("one key was synced by two workers at once")
	}
}

// TestQueueCoalesces came with server/nodestatus, whose own queue this one
// replaced: keys added while queued or in process are synced once more,
// after Done, and nothing is handed out after ShutDown.
func TestQueueCoalesces(t *testing.T) {
	q := NewQueue(time.Millisecond, time.Second)
	q.Add("a")
	q.Add("a")
	q.Add("b")
	k, _ := q.Get()
	q.Add("a") // while a is being synced: queued again after Done
	k2, _ := q.Get()
	if k != "a" || k2 != "b" {
		t.Fatalf("got %q then %q, want a then b", k, k2)
	}
	q.Done(k2)
	q.Done(k)
	k3, _ := q.Get()
	if k3 != "a" {
		t.Fatalf("after Done: got %q, want a again", k3)
	}
	q.Done(k3)
	q.ShutDown()
	if k, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get after ShutDown: got %q, want none", k)
	}
}
