package main

import (
	"context"
	"log/slog"
	"time"
)

// pageRelease gives back the start-up pages of the process's executable
// (releaseStartupPages) once the process has settled: Settle after start,
// at the first Window in which it used less than IdleCPU of CPU time, so
// that the pages a burst of work (pods starting, API requests) is using
// are not dropped under it, to be read back from disk. A process never
// idle for MaxWait after Settle is released anyway.
type pageRelease struct {
	Settle, Window, MaxWait time.Duration
	IdleCPU                 time.Duration
	CPU                     func() time.Duration // CPU time the process used so far
	Release                 func() (int64, error)
	Logger                  *slog.Logger
}

// startupPageRelease is the release bramble server and bramble agent run:
// 30 s after start, when the process used under 5 % of a core over a
// second, or 5 minutes later at most.
func startupPageRelease(logger *slog.Logger) pageRelease {
	return pageRelease{Settle: 30 * time.Second, Window: time.Second, MaxWait: 5 * time.Minute,
		IdleCPU: 50 * time.Millisecond, CPU: processCPU, Release: releaseStartupPages, Logger: logger}
}

// run waits as pageRelease says and releases once, unless ctx ends first.
// Run it in its own goroutine.
func (r pageRelease) run(ctx context.Context) {
	if !sleep(ctx, r.Settle) {
		return
	}
	deadline := time.Now().Add(r.MaxWait)
	last := r.CPU()
	for {
		if !sleep(ctx, r.Window) {
			return
		}
		now := r.CPU()
		if now-last < r.IdleCPU || time.Now().After(deadline) {
			break
		}
		last = now
	}
	n, err := r.Release()
	if err != nil {
		r.Logger.Warn("release start-up pages", "err", err)
		return
	}
	r.Logger.Debug("released start-up pages of the executable", "bytes", n)
}

// sleep waits d and reports true, or false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
