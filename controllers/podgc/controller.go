// Package podgc is the pod garbage collector, as Kubernetes' podgc: it
// force-deletes the pods no node will ever finish and keeps the number of
// finished pods bounded.
//
//   - A pod bound to a Node that does not exist is deleted at once (grace
//     0) once the Node has been missing for Config.Quarantine (upstream
//     waits 40 s too), checked against the API, not only the cache.
//   - A terminating pod on a node tainted node.kubernetes.io/out-of-service
//     and not Ready is deleted at once: the operator says the node is down
//     for good, so nothing will stop its containers.
//   - Finished pods (Succeeded, Failed) beyond Config.Threshold
//     (--terminated-pod-gc-threshold) are deleted, oldest first.
//
// A pod on a node that is only unreachable stays Terminating, as upstream:
// its containers may still run, and the node finishes the deletion once it
// is back (or an operator forces it).
package podgc

import (
	"context"
	"log/slog"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Defaults, upstream's.
const (
	DefaultThreshold  = 12500
	DefaultQuarantine = 40 * time.Second
	DefaultPeriod     = 20 * time.Second
)

// Config tunes the collector; zero values take the defaults.
type Config struct {
	// Threshold is how many finished pods may stay; negative keeps them all.
	Threshold int
	// Quarantine is how long a pod's Node must be missing before the pod goes.
	Quarantine time.Duration
	// Period is how often the pods are looked at.
	Period time.Duration
}

var (
	podsRes  = controllers.MustResource("", "pods")
	nodesRes = controllers.MustResource("", "nodes")
)

// gcKey is the one key of the queue: every pass looks at every pod.
const gcKey = "pods"

// Controller collects pods.
type Controller struct {
	cfg     Config
	client  controllers.Client
	cache   *controllers.Cache
	log     *slog.Logger
	now     func() time.Time
	podInf  *controllers.Informer
	nodeInf *controllers.Informer
	queue   *controllers.Queue
	events  *controllers.Recorder
	missing map[string]time.Time // node name -> first seen missing; one worker
}

// New asks d.Cache for the Pod and Node informers; nothing runs until Run.
func New(d controllers.Deps, cfg Config) *Controller {
	if cfg.Threshold == 0 {
		cfg.Threshold = DefaultThreshold
	}
	if cfg.Quarantine <= 0 {
		cfg.Quarantine = DefaultQuarantine
	}
	if cfg.Period <= 0 {
		cfg.Period = DefaultPeriod
	}
	log := d.Logger("podgc")
	c := &Controller{cfg: cfg, client: d.Client, cache: d.Cache, log: log, now: d.Clock(),
		podInf: d.Cache.Informer(podsRes), nodeInf: d.Cache.Informer(nodesRes),
		queue:   controllers.NewQueue(time.Second, time.Minute),
		events:  controllers.NewRecorder(d.Client, "pod-garbage-collector", log),
		missing: map[string]time.Time{}}
	c.nodeInf.AddHandler(controllers.Handler{OnDelete: func(api.Object) { c.queue.Add(gcKey) }})
	return c
}

// Run waits for the cache, then collects every Period until ctx ends. One
// worker: a pass looks at every pod anyway.
func (c *Controller) Run(ctx context.Context, _ int) {
	c.queue.Add(gcKey)
	controllers.Run(ctx, c.cache, c.events, c.log, 1, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// sync is one pass; the next comes after Period.
func (c *Controller) sync(ctx context.Context, _ string) error {
	defer c.queue.AddAfter(gcKey, c.cfg.Period)
	return c.collect(ctx)
}
