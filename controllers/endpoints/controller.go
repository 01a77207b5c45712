// Package endpoints keeps the Endpoints of every Service with a selector
// in line with the pods it selects, as upstream's endpoints controller
// does: a pod with an IP is an address (ready, or not ready when its Ready
// condition is not True), each Service port resolved against the pod's
// containers (a named targetPort by the container port's name), addresses
// grouped into subsets by the ports they serve. Endpoints of a Service
// without a selector are the user's and left alone; a deleted Service's go
// with it. SliceController (slices.go) writes the same addresses as
// EndpointSlices.
package endpoints

import (
	"context"
	"log/slog"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component names the controller in events.
const Component = "endpoints-controller"

var (
	services  = controllers.MustResource("", "services")
	pods      = controllers.MustResource("", "pods")
	endpoints = controllers.MustResource("", "endpoints")
)

// Controller writes Endpoints from Services and pods.
type Controller struct {
	client controllers.Client
	cache  *controllers.Cache
	log    *slog.Logger
	svcInf *controllers.Informer
	podInf *controllers.Informer
	epInf  *controllers.Informer
	queue  *controllers.Queue
	events *controllers.Recorder
}

// New asks d.Cache for the informers it reads and registers its handlers;
// nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("endpoints")
	c := &Controller{client: d.Client, cache: d.Cache, log: log,
		svcInf: d.Cache.Informer(services), podInf: d.Cache.Informer(pods), epInf: d.Cache.Informer(endpoints),
		queue:  controllers.NewQueue(5*time.Millisecond, time.Minute),
		events: controllers.NewRecorder(d.Client, Component, log)}
	addIndexes(c.svcInf, c.podInf)
	c.svcInf.AddHandler(controllers.EnqueueHandler(c.queue))
	c.podInf.AddHandler(controllers.Handler{
		OnAdd:    func(p api.Object) { c.podChanged(nil, p) },
		OnUpdate: c.podChanged,
		OnDelete: func(p api.Object) { c.podChanged(nil, p) },
	})
	// A deleted Endpoints of a selecting Service is written again.
	c.epInf.AddHandler(controllers.Handler{OnDelete: func(o api.Object) { c.queue.Add(controllers.KeyOf(o)) }})
	return c
}

// Run waits for the cache, then syncs Services with workers workers until
// ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.events, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// podChanged queues the Services that select the pod.
func (c *Controller) podChanged(old, cur api.Object) {
	for _, key := range selecting(c.svcInf, old, cur) {
		c.queue.Add(key)
	}
}
