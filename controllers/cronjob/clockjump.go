package cronjob

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/internal/periodic"
)

// Edge devices (a Raspberry Pi has no real-time clock) boot with a wrong
// wall clock and have it stepped by NTP later, forward or back by hours.
// The work queue waits on the monotonic clock, so a CronJob requeued for
// its next start time would wake at the wrong wall time after a step.
// The controller therefore checks the wall clock against the monotonic
// one now and then and, when they disagree, syncs every CronJob at once:
// Sync itself then starts at most the latest missed run (within
// startingDeadlineSeconds) and never one already recorded as scheduled.

const (
	// clockCheckEvery is how often the wall clock is compared with the
	// monotonic one.
	clockCheckEvery = 15 * time.Second
	// clockJumpMin is the disagreement that counts as a step.
	clockJumpMin = 5 * time.Second
)

// clockReading is one look at both clocks.
type clockReading struct {
	wall time.Time     // monotonic reading stripped
	mono time.Duration // since the watcher started
}

// clockJump is how far the wall clock moved beyond the monotonic time
// between two readings (negative when it was set back).
func clockJump(prev, cur clockReading) time.Duration {
	return cur.wall.Sub(prev.wall) - (cur.mono - prev.mono)
}

// watchClock syncs every CronJob whenever the wall clock is stepped by
// clockJumpMin or more, until ctx ends.
func (c *Controller) watchClock(ctx context.Context) {
	start := time.Now()
	read := func() clockReading { now := time.Now(); return clockReading{wall: now.Round(0), mono: now.Sub(start)} }
	prev := read()
	periodic.Every(ctx, clockCheckEvery, func() {
		cur := read()
		if j := clockJump(prev, cur); j >= clockJumpMin || j <= -clockJumpMin {
			c.log.Warn("wall clock stepped; checking every CronJob", "jump", j.Round(time.Second).String())
			c.resyncAll()
		}
		prev = cur
	})
}

// resyncAll queues every cached CronJob.
func (c *Controller) resyncAll() {
	for _, o := range c.cjInf.List("", labels.Everything()) {
		c.queue.Add(controllers.KeyOf(o))
	}
}
