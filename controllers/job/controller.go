// Package job runs the Job controller: it keeps up to spec.parallelism
// pods of a Job running until spec.completions of them have succeeded,
// retries failed pods with exponential back-off up to spec.backoffLimit,
// enforces spec.activeDeadlineSeconds, honours spec.suspend, and deletes
// a finished Job once spec.ttlSecondsAfterFinished has passed.
package job

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component is the name the controller's events report.
const Component = "job-controller"

var (
	jobResource = controllers.MustResource("batch", "jobs")
	podResource = controllers.MustResource("", "pods")
)

// expectationTimeout is how long a create or delete may stay unseen in
// the cache before the controller stops waiting for it.
const expectationTimeout = 2 * time.Minute

// Controller runs Jobs to completion.
type Controller struct {
	// BackoffBase is the wait before a Job's pod is re-created after its
	// first failure; it doubles per failure up to BackoffMax (Kubernetes:
	// 10s and 6m, the defaults). Set them before Run.
	BackoffBase, BackoffMax time.Duration

	client controllers.Client
	log    *slog.Logger
	now    func() time.Time
	cache  *controllers.Cache
	jobInf *controllers.Informer
	podInf *controllers.Informer
	queue  *controllers.Queue
	rec    *controllers.Recorder
	exp    *controllers.Expectations

	mu         sync.Mutex
	failedSeen map[types.UID]time.Time // when a failed pod without a finish time was first seen
}

// New makes the controller and registers its informers and handlers with
// d.Cache; nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("job")
	c := &Controller{
		BackoffBase: 10 * time.Second, BackoffMax: 6 * time.Minute,
		client: d.Client, log: log, now: d.Clock(), cache: d.Cache,
		jobInf: d.Cache.Informer(jobResource), podInf: d.Cache.Informer(podResource),
		queue:      controllers.NewQueue(10*time.Millisecond, 5*time.Minute),
		rec:        controllers.NewRecorder(d.Client, Component, log),
		exp:        controllers.NewExpectations(expectationTimeout, d.Clock()),
		failedSeen: map[types.UID]time.Time{},
	}
	c.jobInf.AddHandler(controllers.EnqueueHandler(c.queue))
	c.podInf.AddHandler(controllers.ChangeHandler(c.podChanged))
	return c
}

// Run waits for the cache, then syncs Jobs with workers workers until ctx
// ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.rec, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

func (c *Controller) podChanged(old, cur api.Object, deleted bool) {
	controllers.OwnerChanged(c.queue, c.exp, "batch/v1", "Job", old, cur, deleted)
	if deleted {
		c.mu.Lock()
		delete(c.failedSeen, cur.GetUID())
		c.mu.Unlock()
	}
}
