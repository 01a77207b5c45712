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
//
// Later bursts bring pages back too: the first CustomResourceDefinition,
// the first server-side apply or OpenAPI document of a group, run code the
// idle process never touches again. When FileRSS is set, the process looks
// every Recheck at the executable pages it has resident and, once they have
// grown by Regrow since the last release, releases again at its next idle
// window.
type pageRelease struct {
	Settle, Window, MaxWait time.Duration
	IdleCPU                 time.Duration
	CPU                     func() time.Duration // CPU time the process used so far
	Release                 func() (int64, error)
	Logger                  *slog.Logger

	FileRSS func() int64 // resident file-backed bytes (RssFile); nil: release once
	Recheck time.Duration
	Regrow  int64
}

// startupPageRelease is the release bramble server and bramble agent run:
// 30 s after start, when the process used under 5 % of a core over a
// second, or 5 minutes later at most.
func startupPageRelease(logger *slog.Logger) pageRelease {
	return pageRelease{Settle: 30 * time.Second, Window: time.Second, MaxWait: 5 * time.Minute,
		IdleCPU: 50 * time.Millisecond, CPU: processCPU, Release: releaseStartupPages, Logger: logger,
		FileRSS: fileRSS, Recheck: time.Minute, Regrow: 4 << 20}
}

// run waits as pageRelease says and releases, unless ctx ends first; with
// FileRSS set it goes on releasing after bursts until ctx ends. Run it in
// its own goroutine.
func (r pageRelease) run(ctx context.Context) {
	if !sleep(ctx, r.Settle) || !r.releaseWhenIdle(ctx) || r.FileRSS == nil {
		return
	}
	base := r.FileRSS()
	for sleep(ctx, r.Recheck) {
		if r.FileRSS() < base+r.Regrow {
			continue
		}
		if !r.releaseWhenIdle(ctx) {
			return
		}
		base = r.FileRSS()
	}
}

// releaseWhenIdle waits for an idle window (MaxWait at most) and releases;
// it reports false when ctx ended first.
func (r pageRelease) releaseWhenIdle(ctx context.Context) bool {
	deadline := time.Now().Add(r.MaxWait)
	last := r.CPU()
	for {
		if !sleep(ctx, r.Window) {
			return false
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
		return true
	}
	r.Logger.Debug("released pages of the executable", "bytes", n)
	return true
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
