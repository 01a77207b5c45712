package endpoints

import (
	"context"
	"log/slog"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// SliceComponent names the EndpointSlice controller, in events and in
// the endpointslice.kubernetes.io/managed-by label of its slices.
const SliceComponent = "endpointslice-controller.k8s.io"

// maxSliceEndpoints is how many endpoints one slice holds, as upstream's
// controller's default.
const maxSliceEndpoints = 100

var endpointSlices = controllers.MustResource("discovery.k8s.io", "endpointslices")

// SliceController writes the EndpointSlices of every Service with a
// selector: the same addresses as its Endpoints, with their conditions
// (ready, serving, terminating), in slices of up to 100 endpoints per set
// of ports, owned by the Service (the garbage collector removes them with
// it). Slices other managers wrote are left alone.
type SliceController struct {
	client   controllers.Client
	cache    *controllers.Cache
	log      *slog.Logger
	svcInf   *controllers.Informer
	podInf   *controllers.Informer
	sliceInf *controllers.Informer
	queue    *controllers.Queue
	events   *controllers.Recorder
	// exp holds back a sync while the cache does not show the slices the
	// last one created or deleted (else it would create them twice).
	exp *controllers.Expectations
}

// NewSlices asks d.Cache for the informers it reads and registers its
// handlers; nothing runs until Run.
func NewSlices(d controllers.Deps) *SliceController {
	log := d.Logger("endpointslice")
	c := &SliceController{client: d.Client, cache: d.Cache, log: log,
		svcInf: d.Cache.Informer(services), podInf: d.Cache.Informer(pods), sliceInf: d.Cache.Informer(endpointSlices),
		queue:  controllers.NewQueue(5*time.Millisecond, time.Minute),
		events: controllers.NewRecorder(d.Client, SliceComponent, log)}
	c.exp = controllers.NewExpectations(time.Minute, d.Clock())
	addIndexes(c.svcInf, c.podInf)
	c.svcInf.AddHandler(controllers.EnqueueHandler(c.queue))
	c.podInf.AddHandler(controllers.Handler{
		OnAdd:    func(p api.Object) { c.podChanged(nil, p) },
		OnUpdate: c.podChanged,
		OnDelete: func(p api.Object) { c.podChanged(nil, p) },
	})
	c.sliceInf.AddHandler(controllers.Handler{OnAdd: c.sliceChanged,
		OnUpdate: func(_, s api.Object) { c.sliceChanged(s) }, OnDelete: c.sliceChanged})
	return c
}

// Run waits for the cache, then syncs Services with workers workers until
// ctx ends.
func (c *SliceController) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.events, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

func (c *SliceController) podChanged(old, cur api.Object) {
	for _, key := range selecting(c.svcInf, old, cur) {
		c.queue.Add(key)
	}
}

// sliceChanged queues the Service of a slice this controller manages: a
// slice it created shows in the cache, or one changed or deleted by
// someone else is written again.
func (c *SliceController) sliceChanged(o api.Object) {
	s := o.(*discoveryv1.EndpointSlice)
	if s.Labels[discoveryv1.LabelManagedBy] == SliceComponent && s.Labels[discoveryv1.LabelServiceName] != "" {
		c.queue.Add(s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName])
	}
}
