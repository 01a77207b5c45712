// Package resourcequota keeps each ResourceQuota's status current:
// status.hard mirrors spec.hard and status.used is what the namespace's
// objects use (terminal pods no longer count their compute resources).
// Enforcement happens at admission (server/admission); this controller
// only reports.
package resourcequota

import (
	"context"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/api/quota"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/internal/periodic"
)

// Component is the name the controller's events report.
const Component = "resourcequota-controller"

// Resync is how often every quota is recomputed besides the changes seen
// (pods whose deletion grace ends, kinds counted by count/* only).
const Resync = 30 * time.Second

var quotaResource = controllers.MustResource("", "resourcequotas")

// counted are the kinds whose changes re-queue their namespace's quotas.
var counted = []string{"pods", "services", "persistentvolumeclaims", "secrets", "configmaps"}

// Controller recomputes quota status.
type Controller struct {
	client   controllers.Client
	log      *slog.Logger
	now      func() time.Time
	cache    *controllers.Cache
	quotaInf *controllers.Informer
	queue    *controllers.Queue
	rec      *controllers.Recorder

	mu   sync.Mutex
	infs map[*api.Resource]*controllers.Informer // those sync asked for
}

// New makes the controller and registers its handlers with d.Cache.
func New(d controllers.Deps) *Controller {
	log := d.Logger("resourcequota")
	c := &Controller{client: d.Client, log: log, now: d.Clock(), cache: d.Cache,
		quotaInf: d.Cache.Informer(quotaResource),
		queue:    controllers.NewQueue(10*time.Millisecond, time.Minute),
		rec:      controllers.NewRecorder(d.Client, Component, log), infs: map[*api.Resource]*controllers.Informer{}}
	c.quotaInf.AddHandler(controllers.EnqueueHandler(c.queue))
	for _, name := range counted {
		if res, ok := api.Lookup("", "v1", name); ok {
			d.Cache.Informer(res).AddHandler(controllers.Handler{
				OnAdd:    c.enqueueNamespace,
				OnUpdate: func(_, o api.Object) { c.enqueueNamespace(o) },
				OnDelete: c.enqueueNamespace,
			})
		}
	}
	return c
}

// Run syncs quotas with workers workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	go periodic.Every(ctx, Resync, c.resyncAll)
	controllers.Run(ctx, c.cache, c.rec, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// resyncAll queues every quota.
func (c *Controller) resyncAll() {
	for _, q := range c.quotaInf.List("", nil) {
		c.queue.Add(controllers.KeyOf(q))
	}
}

// enqueueNamespace queues the quotas of the changed object's namespace.
func (c *Controller) enqueueNamespace(o api.Object) {
	for _, q := range c.quotaInf.List(o.GetNamespace(), nil) {
		c.queue.Add(controllers.KeyOf(q))
	}
}

// sync writes the quota's hard and used when they changed.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.quotaInf.Get(ns, name)
	if !ok {
		return nil
	}
	q := obj.(*corev1.ResourceQuota)
	objects := func(res *api.Resource) []api.Object { return c.informer(res).List(ns, nil) }
	used := quota.Used(q, quota.Sources(q.Spec.Hard, quota.BuiltIn), objects, quota.At(c.now()))
	if equality.Semantic.DeepEqual(q.Status.Hard, q.Spec.Hard) && equality.Semantic.DeepEqual(q.Status.Used, used) {
		return nil
	}
	next := q.DeepCopy()
	next.Status.Hard, next.Status.Used = q.Spec.Hard.DeepCopy(), used
	_, err := c.client.UpdateStatus(ctx, next)
	return err
}

// informer is res's informer, asked of the cache once.
func (c *Controller) informer(res *api.Resource) *controllers.Informer {
	c.mu.Lock()
	defer c.mu.Unlock()
	inf, ok := c.infs[res]
	if !ok {
		inf = c.cache.Informer(res)
		c.infs[res] = inf
	}
	return inf
}
