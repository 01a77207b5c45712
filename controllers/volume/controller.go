// Package volume binds PersistentVolumeClaims to PersistentVolumes and
// runs the built-in local-path provisioner (docs/STORAGE.md):
//
//   - a claim binds to the smallest Available static volume of its class
//     whose access modes, size, selector (and, for WaitForFirstConsumer
//     classes, node affinity to the scheduler's selected node) fit;
//   - a claim of a local-path class, once the scheduler has written the
//     volume.kubernetes.io/selected-node annotation, gets a new volume: a
//     directory under the node's local storage path (which its agent
//     reports on the Node), with node affinity to that node. The agent
//     makes the directory when it mounts the volume;
//   - a volume whose claim is gone is Released; with reclaimPolicy Delete
//     a local-path volume is deleted, and its agent removes the directory
//     when it learns the volume is gone; Retain keeps both;
//   - the protection finalizers are removed once nothing uses the object:
//     a claim once no running pod mounts it, a volume once no claim is
//     bound to it.
//
// A claim that cannot be bound stays Pending with an Event saying why.
package volume

import (
	"context"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component names the controller in events (upstream's binder).
const Component = "persistentvolume-controller"

// indexClaim indexes pods by the claims their volumes use.
const indexClaim = "volume-claim"

var (
	claimsRes  = controllers.MustResource("", "persistentvolumeclaims")
	volumesRes = controllers.MustResource("", "persistentvolumes")
	classesRes = controllers.MustResource("storage.k8s.io", "storageclasses")
	podsRes    = controllers.MustResource("", "pods")
	nodesRes   = controllers.MustResource("", "nodes")
)

// Controller binds claims and volumes.
type Controller struct {
	client  controllers.Client
	cache   *controllers.Cache
	log     *slog.Logger
	claims  *controllers.Informer
	volumes *controllers.Informer
	classes *controllers.Informer
	pods    *controllers.Informer
	nodes   *controllers.Informer
	claimQ  *controllers.Queue
	volumeQ *controllers.Queue
	events  *controllers.Recorder
}

// New asks d.Cache for the informers it reads and registers its handlers;
// nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("volume")
	c := &Controller{client: d.Client, cache: d.Cache, log: log,
		claims: d.Cache.Informer(claimsRes), volumes: d.Cache.Informer(volumesRes),
		classes: d.Cache.Informer(classesRes), pods: d.Cache.Informer(podsRes), nodes: d.Cache.Informer(nodesRes),
		claimQ: controllers.NewQueue(5*time.Millisecond, time.Minute), volumeQ: controllers.NewQueue(5*time.Millisecond, time.Minute),
		events: controllers.NewRecorder(d.Client, Component, log)}
	c.pods.AddIndex(indexClaim, podClaimKeys)
	c.claims.AddHandler(controllers.Handler{
		OnAdd:    c.claimChanged,
		OnUpdate: func(_, o api.Object) { c.claimChanged(o) },
		OnDelete: c.claimChanged,
	})
	c.volumes.AddHandler(controllers.Handler{
		OnAdd:    c.volumeChanged,
		OnUpdate: func(_, o api.Object) { c.volumeChanged(o) },
		OnDelete: c.volumeChanged,
	})
	c.pods.AddHandler(controllers.Handler{
		OnAdd:    c.podChanged,
		OnUpdate: func(_, o api.Object) { c.podChanged(o) },
		OnDelete: c.podChanged,
	})
	return c
}

// Run waits for the cache, then syncs claims and volumes with workers
// workers each until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.events, c.log, workers,
		controllers.Loop{Queue: c.claimQ, Sync: c.syncClaim},
		controllers.Loop{Queue: c.volumeQ, Sync: c.syncVolume})
}

// podClaimKeys are the keys of the claims the pod uses.
func podClaimKeys(o api.Object) []string {
	pod := o.(*corev1.Pod)
	names := api.PodClaims(pod)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = pod.Namespace + "/" + n
	}
	return out
}

// claimChanged queues the claim and the volume it names: a volume learns
// of its claim's binding or deletion from here.
func (c *Controller) claimChanged(o api.Object) {
	pvc := o.(*corev1.PersistentVolumeClaim)
	c.claimQ.Add(controllers.KeyOf(pvc))
	if pvc.Spec.VolumeName != "" {
		c.volumeQ.Add(pvc.Spec.VolumeName)
	}
	for _, v := range c.volumes.List("", nil) {
		if ref := v.(*corev1.PersistentVolume).Spec.ClaimRef; ref != nil && ref.UID == pvc.UID && v.GetName() != pvc.Spec.VolumeName {
			c.volumeQ.Add(v.GetName())
		}
	}
}

// volumeChanged queues the volume, its claim, and the Pending claims
// that might bind to it now.
func (c *Controller) volumeChanged(o api.Object) {
	pv := o.(*corev1.PersistentVolume)
	c.volumeQ.Add(pv.Name)
	if ref := pv.Spec.ClaimRef; ref != nil {
		c.claimQ.Add(ref.Namespace + "/" + ref.Name)
		return
	}
	for _, obj := range c.claims.List("", nil) {
		if obj.(*corev1.PersistentVolumeClaim).Spec.VolumeName == "" {
			c.claimQ.Add(controllers.KeyOf(obj))
		}
	}
}

// podChanged queues the pod's claims: their protection depends on it.
func (c *Controller) podChanged(o api.Object) {
	for _, key := range podClaimKeys(o) {
		c.claimQ.Add(key)
	}
}
