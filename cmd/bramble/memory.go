package main

import (
	"context"
	"log/slog"
	"time"
)

// startupSettle is how long after start a server or agent process gives
// up the pages of its executable that only start-up needed.
const startupSettle = 30 * time.Second

// releaseAfterStart calls releaseStartupPages once, after the process has
// settled, unless ctx ends first. Run it in its own goroutine.
func releaseAfterStart(ctx context.Context, after time.Duration, logger *slog.Logger) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(after):
	}
	n, err := releaseStartupPages()
	if err != nil {
		logger.Warn("release start-up pages", "err", err)
		return
	}
	logger.Debug("released start-up pages of the executable", "bytes", n)
}
