// Package hpa runs the HorizontalPodAutoscaler controller: every sync
// period it reads the pods of each HPA's scale target, their CPU and
// memory usage from the metrics the agents' heartbeats carry (the metrics
// API's source), computes the replicas each metric asks for as upstream
// does (tolerance, missing metrics, not-ready pods), holds them to the
// HPA's behavior (stabilization windows, policies) and its bounds, scales
// the Deployment, ReplicaSet or StatefulSet, and reports status and
// conditions (AbleToScale, ScalingActive, ScalingLimited).
package hpa

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component is the name the controller's events report.
const Component = "horizontal-pod-autoscaler"

// DefaultSyncPeriod is upstream's --horizontal-pod-autoscaler-sync-period.
const DefaultSyncPeriod = 15 * time.Second

var (
	hpaResource = api.MustLookup("autoscaling", "v2", "horizontalpodautoscalers")
	podResource = controllers.MustResource("", "pods")
)

// Config is what the controller needs beyond Deps (whose PodMetrics it
// reads).
type Config struct {
	// SyncPeriod is how often each HPA is looked at (default
	// DefaultSyncPeriod).
	SyncPeriod time.Duration
}

// Controller scales workloads by their HorizontalPodAutoscalers.
type Controller struct {
	client  controllers.Client
	log     *slog.Logger
	now     func() time.Time
	cache   *controllers.Cache
	hpaInf  *controllers.Informer
	podInf  *controllers.Informer
	queue   *controllers.Queue
	rec     *controllers.Recorder
	metrics controllers.PodMetrics
	period  time.Duration

	mu      sync.Mutex
	history map[string]*history
}

// New makes the controller and registers its informers with d.Cache.
func New(d controllers.Deps, cfg Config) *Controller {
	log := d.Logger("hpa")
	c := &Controller{client: d.Client, log: log, now: d.Clock(), cache: d.Cache,
		hpaInf: d.Cache.Informer(hpaResource), podInf: d.Cache.Informer(podResource),
		queue: controllers.NewQueue(10*time.Millisecond, time.Minute), rec: controllers.NewRecorder(d.Client, Component, log),
		metrics: d.PodMetrics, period: cfg.SyncPeriod, history: map[string]*history{}}
	if c.period <= 0 {
		c.period = DefaultSyncPeriod
	}
	c.hpaInf.AddHandler(controllers.EnqueueHandler(c.queue))
	return c
}

// Run waits for the cache, then syncs HPAs with workers workers until ctx
// ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.rec, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.Sync})
}

// historyOf returns the in-memory history of the HPA key (nil forgets it).
func (c *Controller) historyOf(key string, keep bool) *history {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !keep {
		delete(c.history, key)
		return nil
	}
	h := c.history[key]
	if h == nil {
		h = &history{}
		c.history[key] = h
	}
	return h
}
