// Package servicelb is bramble's built-in service load balancer, in the
// spirit of k3s's ServiceLB: a Service of type LoadBalancer without a
// spec.loadBalancerClass gets, in status.loadBalancer.ingress, the
// addresses of the nodes that answer for it. Every node's service proxy
// already opens the service ports on the ingress IPs (agent/network/proxy),
// so no extra daemon runs. Which nodes (docs/SERVICES.md):
//
//   - when no node is labelled svccontroller.bramble.io/enablelb=true: the
//     nodes running a ready endpoint of the Service (EndpointSlices'
//     nodeName);
//   - when some are: the labelled nodes that are Ready; with
//     externalTrafficPolicy Local only those of them running a ready
//     endpoint (the others would drop the traffic).
//
// A node's address is its ExternalIP when it has one, else its InternalIP.
// A Service whose type changes away from LoadBalancer has its ingress
// cleared. `bramble server --disable servicelb` does not run it, so another
// controller (MetalLB-style) can own every LoadBalancer.
package servicelb

import (
	"context"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

const (
	// Component names the controller in events.
	Component = "servicelb-controller"
	// LabelEnableLB on nodes, set to "true", restricts load balancer
	// addresses to the labelled nodes (k3s: svccontroller.k3s.cattle.io/enablelb).
	LabelEnableLB = "svccontroller.bramble.io/enablelb"
	// indexService indexes EndpointSlices by their Service's key.
	indexService = "servicelb-service"
)

var (
	services       = controllers.MustResource("", "services")
	nodes          = controllers.MustResource("", "nodes")
	endpointSlices = controllers.MustResource("discovery.k8s.io", "endpointslices")
)

// Controller writes the load balancer status of Services.
type Controller struct {
	client   controllers.Client
	cache    *controllers.Cache
	log      *slog.Logger
	svcInf   *controllers.Informer
	nodeInf  *controllers.Informer
	sliceInf *controllers.Informer
	queue    *controllers.Queue
	events   *controllers.Recorder
}

// New asks d.Cache for the informers it reads and registers its handlers;
// nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("servicelb")
	c := &Controller{client: d.Client, cache: d.Cache, log: log,
		svcInf: d.Cache.Informer(services), nodeInf: d.Cache.Informer(nodes), sliceInf: d.Cache.Informer(endpointSlices),
		queue:  controllers.NewQueue(5*time.Millisecond, time.Minute),
		events: controllers.NewRecorder(d.Client, Component, log)}
	c.sliceInf.AddIndex(indexService, sliceService)
	c.svcInf.AddHandler(controllers.EnqueueHandler(c.queue))
	c.sliceInf.AddHandler(controllers.Handler{
		OnAdd:    c.sliceChanged,
		OnUpdate: func(_, o api.Object) { c.sliceChanged(o) },
		OnDelete: c.sliceChanged,
	})
	c.nodeInf.AddHandler(controllers.Handler{
		OnAdd:    func(api.Object) { c.queueAll() },
		OnUpdate: c.nodeChanged,
		OnDelete: func(api.Object) { c.queueAll() },
	})
	return c
}

// Run waits for the cache, then syncs Services with workers workers until
// ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.events, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// sliceService is the key of the Service an EndpointSlice belongs to.
func sliceService(o api.Object) []string {
	name := o.GetLabels()[discoveryv1.LabelServiceName]
	if name == "" {
		return nil
	}
	return []string{o.GetNamespace() + "/" + name}
}

func (c *Controller) sliceChanged(o api.Object) {
	for _, key := range sliceService(o) {
		c.queue.Add(key)
	}
}

// nodeChanged requeues every load balancer when what the choice reads of
// a node changed: its enablelb label, addresses or readiness. Heartbeats
// alone change none of them.
func (c *Controller) nodeChanged(old, cur api.Object) {
	a, b := old.(*corev1.Node), cur.(*corev1.Node)
	if a.Labels[LabelEnableLB] == b.Labels[LabelEnableLB] && nodeAddress(a) == nodeAddress(b) && nodeReady(a) == nodeReady(b) {
		return
	}
	c.queueAll()
}

// queueAll queues every Service of type LoadBalancer.
func (c *Controller) queueAll() {
	for _, o := range c.svcInf.List("", nil) {
		if o.(*corev1.Service).Spec.Type == corev1.ServiceTypeLoadBalancer {
			c.queue.Add(controllers.KeyOf(o))
		}
	}
}
