// Package disruption keeps each PodDisruptionBudget's status current:
// how many of its pods are expected and healthy, how many must stay
// healthy, and so how many disruptions it allows now. The eviction API
// (pods/eviction, which kubectl drain and the scheduler's preemption use)
// spends disruptions from this status and lists the evicted pods in
// disruptedPods; they stop counting as healthy until they are gone.
package disruption

import (
	"context"
	"log/slog"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component is the name the controller's events report.
const Component = "disruption-controller"

var (
	pdbResource = controllers.MustResource("policy", "poddisruptionbudgets")
	podResource = controllers.MustResource("", "pods")
	rsResource  = controllers.MustResource("apps", "replicasets")
)

// Controller computes PodDisruptionBudget status.
type Controller struct {
	client controllers.Client
	log    *slog.Logger
	now    func() time.Time
	cache  *controllers.Cache
	pdbInf *controllers.Informer
	podInf *controllers.Informer
	rsInf  *controllers.Informer
	queue  *controllers.Queue
	rec    *controllers.Recorder
}

// New makes the controller and registers its handlers with d.Cache.
func New(d controllers.Deps) *Controller {
	log := d.Logger("disruption")
	c := &Controller{client: d.Client, log: log, now: d.Clock(), cache: d.Cache,
		pdbInf: d.Cache.Informer(pdbResource), podInf: d.Cache.Informer(podResource),
		rsInf: d.Cache.Informer(rsResource),
		queue: controllers.NewQueue(10*time.Millisecond, time.Minute),
		rec:   controllers.NewRecorder(d.Client, Component, log)}
	c.pdbInf.AddHandler(controllers.EnqueueHandler(c.queue))
	onChange := controllers.Handler{
		OnAdd:    c.enqueueNamespace,
		OnUpdate: func(_, o api.Object) { c.enqueueNamespace(o) },
		OnDelete: c.enqueueNamespace,
	}
	c.podInf.AddHandler(onChange)
	c.rsInf.AddHandler(onChange)
	return c
}

// Run syncs budgets with workers workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.rec, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// enqueueNamespace queues the budgets of the changed object's namespace.
func (c *Controller) enqueueNamespace(o api.Object) {
	for _, b := range c.pdbInf.List(o.GetNamespace(), nil) {
		c.queue.Add(controllers.KeyOf(b))
	}
}

// sync writes the budget's status when it changed.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.pdbInf.Get(ns, name)
	if !ok {
		return nil
	}
	pdb := obj.(*policyv1.PodDisruptionBudget)
	var pods []*corev1.Pod
	for _, o := range c.podInf.List(ns, nil) {
		pods = append(pods, o.(*corev1.Pod))
	}
	st := Compute(pdb, pods, c.scaleOf, c.now())
	if len(st.DisruptedPods) > 0 {
		c.queue.AddAfter(key, disruptedTimeout)
	}
	if equality.Semantic.DeepEqual(pdb.Status, st) {
		return nil
	}
	next := pdb.DeepCopy()
	next.Status = st
	_, err := c.client.UpdateStatus(ctx, next)
	return err
}

// scaleOf is the replicas a pod's controller wants, when the controller
// is a ReplicaSet in the cache.
func (c *Controller) scaleOf(ref *metav1.OwnerReference, ns string) (int32, bool) {
	if ref.Kind != "ReplicaSet" || ref.APIVersion != "apps/v1" {
		return 0, false
	}
	o, ok := c.rsInf.Get(ns, ref.Name)
	if !ok || o.GetUID() != ref.UID {
		return 0, false
	}
	if r := o.(*appsv1.ReplicaSet).Spec.Replicas; r != nil {
		return *r, true
	}
	return 1, true
}
