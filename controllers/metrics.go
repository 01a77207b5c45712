package controllers

import (
	"context"
	"strconv"
	"time"

	"github.com/bramble-edge/bramble/metrics"
)

// loopName names a controller's i-th of n loops in its metrics: the
// controller's event source, with the loop's index when it has several.
func loopName(rec *Recorder, i, n int) string {
	if rec == nil || rec.component == "" {
		return ""
	}
	if n == 1 {
		return rec.component
	}
	return rec.component + "/" + strconv.Itoa(i)
}

// instrumented wraps fn so each sync records its latency and the queue's
// depth after it (workqueue_depth, bramble_controller_sync_duration_seconds).
func instrumented(q *Queue, name string, fn SyncFunc) SyncFunc {
	depth := metrics.QueueDepth.WithLabelValues(name)
	ok := metrics.SyncDuration.WithLabelValues(name, "ok")
	failed := metrics.SyncDuration.WithLabelValues(name, "error")
	return func(ctx context.Context, key string) error {
		depth.Set(float64(q.Len()))
		start := time.Now()
		err := fn(ctx, key)
		if err != nil {
			failed.Observe(time.Since(start).Seconds())
		} else {
			ok.Observe(time.Since(start).Seconds())
		}
		depth.Set(float64(q.Len()))
		return err
	}
}
