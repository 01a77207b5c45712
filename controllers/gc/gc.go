// Package gc is bramble's garbage collector: it carries out what a DELETE's
// propagation policy asked for (the server only records it, as finalizers;
// see server/propagation.go), with Kubernetes' semantics.
//
//   - A dependent all of whose owners are gone is deleted (Background). An
//     owner counts as gone when nothing with its UID exists where it must
//     live: in the dependent's namespace, or cluster-scoped. Before deleting,
//     the collector reads the owner fresh from the server, so a lagging cache
//     never costs a live owner its dependents.
//   - An owner being deleted with the "foregroundDeletion" finalizer gets
//     its dependents deleted (in Foreground themselves when they have
//     dependents of their own); when none with blockOwnerDeletion is left,
//     the finalizer is removed and the server removes the owner.
//   - An owner being deleted with the "orphan" finalizer has the
//     ownerReferences to it removed from every dependent, then the finalizer.
//
// A dependent with one owner still present and others gone or waiting for
// their dependents keeps living: only the references to the others are
// removed. Owners whose kind bramble does not serve are never judged gone.
package gc

import (
	"context"
	"log/slog"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component names the collector in events.
const Component = "garbage-collector"

// Finalizers the collector acts on.
const (
	FinalizerOrphan     = metav1.FinalizerOrphanDependents // "orphan"
	FinalizerForeground = metav1.FinalizerDeleteDependents // "foregroundDeletion"
)

// Controller is the garbage collector.
type Controller struct {
	client    controllers.Client
	cache     *controllers.Cache
	log       *slog.Logger
	queue     *controllers.Queue
	events    *controllers.Recorder
	informers map[*api.Resource]*controllers.Informer
	byID      map[string]*api.Resource // resID -> resource
}

// eventsResource is not collected, as upstream's collector ignores Events
// (its DefaultIgnoredResources): one is written per pod scheduled and more
// per pod started, nothing owns them, and following them would make the
// shared cache decode every one as it is written, which it otherwise
// leaves until someone reads them (informer/lazy.go).
var eventsResource = api.MustLookup("", "v1", "events")

// New asks d.Cache for an informer of every served resource (any object
// may be an owner or a dependent) but Events, and registers its handlers;
// nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("garbage-collector")
	c := &Controller{
		client: d.Client, cache: d.Cache, log: log,
		queue:     controllers.NewQueue(10*time.Millisecond, 5*time.Minute),
		events:    controllers.NewRecorder(d.Client, Component, log),
		informers: map[*api.Resource]*controllers.Informer{},
		byID:      map[string]*api.Resource{},
	}
	for _, res := range api.All() {
		if !res.StorageVersion() {
			continue // its objects are its storage version's
		}
		if res == eventsResource {
			continue // ignored, as upstream's collector ignores them: see eventsResource
		}
		inf := d.Cache.Informer(res)
		c.informers[res] = inf
		c.byID[resID(res)] = res
		inf.AddHandler(controllers.Handler{
			OnAdd:    func(o api.Object) { c.added(res, o) },
			OnUpdate: func(old, cur api.Object) { c.updated(res, old, cur) },
			OnDelete: func(o api.Object) { c.deleted(res, o) },
		})
	}
	return c
}

// Run waits for the cache, then collects with workers workers until ctx
// ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.events, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// sync looks at one object: as an owner being deleted with a propagation
// finalizer, or as a dependent whose owners may be gone.
func (c *Controller) sync(ctx context.Context, key string) error {
	res, ns, name, ok := c.splitKey(key)
	if !ok {
		return nil
	}
	obj, ok := c.informers[res].Get(ns, name)
	if !ok {
		return nil // its dependents were queued when it went
	}
	if obj.GetDeletionTimestamp() != nil {
		switch {
		case hasFinalizer(obj, FinalizerOrphan):
			return c.orphanDependents(ctx, res, obj)
		case hasFinalizer(obj, FinalizerForeground):
			return c.deleteDependents(ctx, res, obj)
		}
		return nil // going anyway
	}
	if len(obj.GetOwnerReferences()) == 0 {
		return nil
	}
	return c.collect(ctx, res, obj)
}

// Queue keys are "<group>/<resource>|<namespace>/<name>" (no namespace
// part for cluster-scoped objects).

func resID(res *api.Resource) string { return res.Group + "/" + res.Name }

func itemKey(res *api.Resource, ns, name string) string {
	if ns == "" {
		return resID(res) + "|" + name
	}
	return resID(res) + "|" + ns + "/" + name
}

func (c *Controller) splitKey(key string) (res *api.Resource, ns, name string, ok bool) {
	id, objKey, found := strings.Cut(key, "|")
	if res, ok = c.byID[id]; !found || !ok {
		c.log.Warn("malformed queue key; dropped", "key", key)
		return nil, "", "", false
	}
	ns, name = controllers.SplitKey(objKey)
	return res, ns, name, true
}

func (c *Controller) enqueue(res *api.Resource, o api.Object) {
	c.queue.Add(itemKey(res, o.GetNamespace(), o.GetName()))
}

func hasFinalizer(o api.Object, f string) bool {
	for _, x := range o.GetFinalizers() {
		if x == f {
			return true
		}
	}
	return false
}
