package agent

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/internal/periodic"
)

// ImageGC holds the kubelet-style thresholds of image garbage collection:
// when the filesystem holding containerd's images is more than High percent
// used, unused images are removed, least recently used first, until it is
// at most Low percent used. Images of desired pods are never removed.
type ImageGC struct {
	High, Low int
	Interval  time.Duration
	// Path is a folder on containerd's image filesystem (its root).
	Path string
}

// Validate names the flag that is wrong.
func (g ImageGC) Validate() error {
	switch {
	case g.High < 0 || g.High > 100:
		return fmt.Errorf("--image-gc-high-threshold: got %d, want 0-100", g.High)
	case g.Low < 0 || g.Low > 100:
		return fmt.Errorf("--image-gc-low-threshold: got %d, want 0-100", g.Low)
	case g.Low > g.High:
		return fmt.Errorf("--image-gc-low-threshold: got %d, want at most --image-gc-high-threshold (%d)", g.Low, g.High)
	case g.Interval < time.Second:
		return fmt.Errorf("--image-gc-interval: got %s, want at least 1s", g.Interval)
	}
	return nil
}

// imageCollector is the runtime's side of image GC.
type imageCollector interface {
	GarbageCollectImages(ctx context.Context, policy runtime.ImageGCPolicy) ([]string, error)
}

// collectImages runs one round: nothing unless the disk is over High.
func collectImages(ctx context.Context, g ImageGC, rt imageCollector, wanted func() ([]string, error), logger *slog.Logger) ([]string, error) {
	used, err := usedPercent(g.Path)
	if err != nil || used <= float64(g.High) {
		return nil, err
	}
	keep, err := wanted()
	if err != nil {
		return nil, fmt.Errorf("image gc: desired pods: %w", err)
	}
	logger.Info("image filesystem over threshold, removing unused images",
		"path", g.Path, "usedPercent", int(used), "high", g.High, "low", g.Low)
	return rt.GarbageCollectImages(ctx, runtime.ImageGCPolicy{Path: g.Path, MinFreePercent: float64(100 - g.Low), Keep: keep})
}

// reclaimImages removes every image no desired pod uses, whatever the
// thresholds: the eviction manager's last resort before evicting a pod
// for a short disk (the kubelet deletes all unused images then too).
func reclaimImages(ctx context.Context, g ImageGC, rt imageCollector, wanted func() ([]string, error), logger *slog.Logger) {
	keep, err := wanted()
	if err != nil {
		logger.Warn("disk pressure: cannot list the images desired pods use; none removed", "err", err)
		return
	}
	removed, err := rt.GarbageCollectImages(ctx, runtime.ImageGCPolicy{Path: g.Path, MinFreePercent: 100, Keep: keep})
	if err != nil {
		logger.Warn("disk pressure: remove unused images", "err", err)
	}
	if len(removed) > 0 {
		logger.Info("disk pressure: removed unused images before evicting", "images", removed)
	}
}

// runImageGC checks the disk every Interval until ctx ends; told hears
// how each round went (ImageGCFailed, FreeDiskSpaceFailed events).
func runImageGC(ctx context.Context, g ImageGC, rt imageCollector, wanted func() ([]string, error), logger *slog.Logger, told gcTold) {
	periodic.Every(ctx, g.Interval, func() {
		removed, err := collectImages(ctx, g, rt, wanted, logger)
		if err != nil && ctx.Err() == nil {
			logger.Error("image gc", "err", err)
		}
		if ctx.Err() == nil {
			told(g, removed, err)
		}
	})
}

// usedPercent is the share of the filesystem holding path that is used.
func usedPercent(path string) (float64, error) {
	free, err := runtime.FreePercent(path)
	if err != nil {
		return 0, fmt.Errorf("image gc: %w", err)
	}
	return 100 - free, nil
}
