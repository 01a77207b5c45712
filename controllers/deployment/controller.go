// Package deployment is bramble's Deployment controller: it rolls a
// Deployment's pod template out through ReplicaSets it owns (RollingUpdate
// or Recreate), keeps revision history that `kubectl rollout history/undo`
// read, scales mid-rollout proportionally, and reports the status and
// conditions `kubectl rollout status` and `kubectl wait` watch.
package deployment

import (
	"context"
	"log/slog"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component is the name the controller reports events under.
const Component = "deployment-controller"

var (
	deploymentsRes = controllers.MustResource("apps", "deployments")
	replicaSetsRes = controllers.MustResource("apps", "replicasets")
	podsRes        = controllers.MustResource("", "pods")
)

// Controller reconciles Deployments.
type Controller struct {
	client      controllers.Client
	cache       *controllers.Cache
	log         *slog.Logger
	now         func() time.Time
	queue       *controllers.Queue
	recorder    *controllers.Recorder
	deployments *controllers.Informer
	rss         *controllers.Informer
	pods        *controllers.Informer
}

// New makes the controller and registers its informers and handlers with
// d.Cache; nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger(Component)
	c := &Controller{
		client: d.Client, cache: d.Cache, log: log, now: d.Clock(),
		queue:       controllers.NewQueue(5*time.Millisecond, 1000*time.Second),
		recorder:    controllers.NewRecorder(d.Client, Component, log),
		deployments: d.Cache.Informer(deploymentsRes),
		rss:         d.Cache.Informer(replicaSetsRes),
		pods:        d.Cache.Informer(podsRes),
	}
	c.deployments.AddHandler(controllers.EnqueueHandler(c.queue))
	c.rss.AddHandler(controllers.Handler{OnAdd: c.rsAdded, OnUpdate: c.rsUpdated, OnDelete: c.rsDeleted})
	c.pods.AddHandler(controllers.Handler{OnUpdate: c.podUpdated, OnDelete: c.podDeleted})
	return c
}

// Run waits for the cache, then reconciles with workers workers until ctx
// ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.recorder, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

func (c *Controller) rsAdded(obj api.Object) {
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		c.enqueueOwner(obj.GetNamespace(), ref)
		return
	}
	c.enqueueSelecting(obj)
}

func (c *Controller) rsUpdated(old, cur api.Object) {
	oldRef, curRef := metav1.GetControllerOfNoCopy(old), metav1.GetControllerOfNoCopy(cur)
	if oldRef != nil && (curRef == nil || oldRef.UID != curRef.UID) {
		c.enqueueOwner(old.GetNamespace(), oldRef)
	}
	if curRef != nil {
		c.enqueueOwner(cur.GetNamespace(), curRef)
		return
	}
	c.enqueueSelecting(cur) // an orphan: someone may adopt it
}

func (c *Controller) rsDeleted(obj api.Object) {
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		c.enqueueOwner(obj.GetNamespace(), ref)
	}
}

// Pod changes matter only to Recreate, which waits for old pods to stop.
func (c *Controller) podUpdated(old, cur api.Object) {
	if podTerminal(cur.(*corev1.Pod)) && !podTerminal(old.(*corev1.Pod)) {
		c.podDeleted(cur)
	}
}

func (c *Controller) podDeleted(obj api.Object) {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, ok := c.rss.Get(obj.GetNamespace(), ref.Name)
	if !ok || rs.GetUID() != ref.UID {
		return
	}
	if dref := metav1.GetControllerOfNoCopy(rs); dref != nil {
		d := c.owner(rs.GetNamespace(), dref)
		if d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
			c.queue.Add(controllers.KeyOf(d))
		}
	}
}

// owner resolves a controller reference to a cached Deployment.
func (c *Controller) owner(namespace string, ref *metav1.OwnerReference) *appsv1.Deployment {
	if ref.Kind != "Deployment" {
		return nil
	}
	obj, ok := c.deployments.Get(namespace, ref.Name)
	if !ok || obj.GetUID() != ref.UID {
		return nil
	}
	return obj.(*appsv1.Deployment)
}

func (c *Controller) enqueueOwner(namespace string, ref *metav1.OwnerReference) {
	if d := c.owner(namespace, ref); d != nil {
		c.queue.Add(controllers.KeyOf(d))
	}
}

// enqueueSelecting queues every Deployment whose selector matches an
// orphaned ReplicaSet's labels.
func (c *Controller) enqueueSelecting(rs api.Object) {
	for _, obj := range c.deployments.ByIndex(controllers.IndexNamespace, rs.GetNamespace()) {
		d := obj.(*appsv1.Deployment)
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		if sel.Matches(labels.Set(rs.GetLabels())) {
			c.queue.Add(controllers.KeyOf(d))
		}
	}
}
