// Package cronjob runs the CronJob controller: at each time a CronJob's
// schedule names (in its timeZone), it creates a Job from the template,
// honouring suspend, startingDeadlineSeconds and concurrencyPolicy
// (Allow, Forbid, Replace); it keeps status.active and the last schedule
// and success times, and deletes finished Jobs beyond the history limits.
package cronjob

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component is the name the controller's events report.
const Component = "cronjob-controller"

var (
	cronJobResource = controllers.MustResource("batch", "cronjobs")
	jobResource     = controllers.MustResource("batch", "jobs")
)

// Controller creates the Jobs of CronJobs on schedule.
type Controller struct {
	client controllers.Client
	log    *slog.Logger
	now    func() time.Time
	cache  *controllers.Cache
	cjInf  *controllers.Informer
	jobInf *controllers.Informer
	queue  *controllers.Queue
	rec    *controllers.Recorder
}

// New makes the controller and registers its informers and handlers with
// d.Cache; nothing runs until Run. d.Now is the clock schedules are read
// by (tests move it by hand).
func New(d controllers.Deps) *Controller {
	log := d.Logger("cronjob")
	c := &Controller{
		client: d.Client, log: log, now: d.Clock(), cache: d.Cache,
		cjInf: d.Cache.Informer(cronJobResource), jobInf: d.Cache.Informer(jobResource),
		queue: controllers.NewQueue(10*time.Millisecond, 5*time.Minute),
		rec:   controllers.NewRecorder(d.Client, Component, log),
	}
	c.cjInf.AddHandler(controllers.EnqueueHandler(c.queue))
	c.jobInf.AddHandler(controllers.Handler{
		OnAdd:    c.jobChanged,
		OnUpdate: func(_, cur api.Object) { c.jobChanged(cur) },
		OnDelete: c.jobChanged,
	})
	return c
}

// Run waits for the cache, then syncs CronJobs with workers workers until
// ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.watchClock(ctx)
	}()
	controllers.Run(ctx, c.cache, c.rec, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.Sync})
	wg.Wait()
}

// jobChanged requeues the CronJob that controls a Job.
func (c *Controller) jobChanged(job api.Object) {
	if key, ok := controllers.ControllerKey(job, "batch/v1", "CronJob"); ok {
		c.queue.Add(key)
	}
}
