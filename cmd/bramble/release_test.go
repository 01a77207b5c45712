package main

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// fakeRelease is a pageRelease with millisecond timings whose CPU reads
// come from busy: busy(i) tells whether the process worked in window i.
func fakeRelease(busy func(window int) bool, released *atomic.Int64) pageRelease {
	var calls int
	var cpu time.Duration
	return pageRelease{Settle: time.Millisecond, Window: time.Millisecond, MaxWait: time.Second,
		IdleCPU: 10 * time.Millisecond,
		CPU: func() time.Duration {
			if calls > 0 && busy(calls-1) {
				cpu += 20 * time.Millisecond
			}
			calls++
			return cpu
		},
		Release: func() (int64, error) { released.Add(1); return 0, nil },
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestPageReleaseWaitsForAnIdleWindow(t *testing.T) {
	var released atomic.Int64
	windows := 0
	r := fakeRelease(func(i int) bool { windows = i + 1; return i < 5 }, &released)
	r.run(context.Background())
	if released.Load() != 1 {
		t.Fatalf("releases: got %d, want 1", released.Load())
	}
	if windows != 6 {
		t.Errorf("windows looked at: got %d, want 6 (5 busy, then the idle one)", windows)
	}
}

func TestPageReleaseGivesUpWaitingAfterMaxWait(t *testing.T) {
	var released atomic.Int64
	r := fakeRelease(func(int) bool { return true }, &released)
	r.MaxWait = 50 * time.Millisecond
	begin := time.Now()
	r.run(context.Background())
	if released.Load() != 1 {
		t.Fatalf("releases: got %d, want 1", released.Load())
	}
	if took := time.Since(begin); took < r.MaxWait {
		t.Errorf("released after %v of a busy process, want >= MaxWait %v", took, r.MaxWait)
	}
}

func TestPageReleaseStopsWithTheContext(t *testing.T) {
	var released atomic.Int64
	r := fakeRelease(func(int) bool { return true }, &released)
	r.MaxWait = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.run(ctx); close(done) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("run still waiting 5 s after its context ended")
	}
	if released.Load() != 0 {
		t.Errorf("releases: got %d, want 0", released.Load())
	}
}

// TestPageReleaseAgainAfterGrowth: once released, the process releases
// again when its executable pages have grown by Regrow, and not before.
func TestPageReleaseAgainAfterGrowth(t *testing.T) {
	var released, rss, reads atomic.Int64
	r := fakeRelease(func(int) bool { return false }, &released)
	r.Release = func() (int64, error) { released.Add(1); rss.Store(10); return 0, nil }
	// run reads its baseline just after the first release; the test may
	// grow rss only after that read, so it counts the reads.
	r.FileRSS = func() int64 { reads.Add(1); return rss.Load() }
	r.Recheck, r.Regrow = time.Millisecond, 100
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.run(ctx); close(done) }()
	waitReleases := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); released.Load() != want; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("releases: got %d, want %d", released.Load(), want)
			}
		}
	}
	waitReleases(1)
	for deadline := time.Now().Add(5 * time.Second); reads.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no baseline read within 5 s of the first release")
		}
	}
	rss.Store(109) // grown by less than Regrow
	time.Sleep(30 * time.Millisecond)
	if released.Load() != 1 {
		t.Fatalf("released again after growth below Regrow: %d releases", released.Load())
	}
	rss.Store(110)
	waitReleases(2)
	cancel()
	<-done
}
