package gc

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// The handlers only queue keys. An object is queued when it may have to
// go (it has owners), when it is an owner whose deletion waits for the
// collector, and when something it depends on or that depends on it goes.

func (c *Controller) added(res *api.Resource, o api.Object) {
	if pendingOwner(o) || len(o.GetOwnerReferences()) > 0 {
		c.enqueue(res, o)
	}
}

func (c *Controller) updated(res *api.Resource, old, cur api.Object) {
	if pendingOwner(cur) {
		c.enqueue(res, cur)
	}
	if slices.EqualFunc(old.GetOwnerReferences(), cur.GetOwnerReferences(), sameRef) {
		return
	}
	if len(cur.GetOwnerReferences()) > 0 {
		c.enqueue(res, cur)
	}
	// An owner waiting for this dependent may wait no longer.
	for _, ref := range old.GetOwnerReferences() {
		if !slices.ContainsFunc(cur.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.UID == ref.UID }) {
			c.enqueueOwner(cur, ref)
		}
	}
}

func (c *Controller) deleted(res *api.Resource, o api.Object) {
	for dres, inf := range c.informers {
		for _, dep := range inf.ByIndex(controllers.IndexOwner, string(o.GetUID())) {
			c.enqueue(dres, dep)
		}
	}
	for _, ref := range o.GetOwnerReferences() {
		c.enqueueOwner(o, ref)
	}
}

// enqueueOwner queues the owner ref names, as seen from dependent dep.
func (c *Controller) enqueueOwner(dep api.Object, ref metav1.OwnerReference) {
	res, ok := ownerResource(ref)
	if !ok {
		return
	}
	ns, ok := ownerNamespace(res, dep)
	if !ok {
		return
	}
	c.queue.Add(itemKey(res, ns, ref.Name))
}

// pendingOwner: the object is being deleted and waits for the collector.
func pendingOwner(o api.Object) bool {
	return o.GetDeletionTimestamp() != nil &&
		(hasFinalizer(o, FinalizerOrphan) || hasFinalizer(o, FinalizerForeground))
}

func sameRef(a, b metav1.OwnerReference) bool {
	return a.UID == b.UID && a.Name == b.Name && a.Kind == b.Kind && a.APIVersion == b.APIVersion &&
		boolValue(a.BlockOwnerDeletion) == boolValue(b.BlockOwnerDeletion) &&
		boolValue(a.Controller) == boolValue(b.Controller)
}

func boolValue(b *bool) bool { return b != nil && *b }

// ownerResource is the served resource a reference names by apiVersion
// and kind.
func ownerResource(ref metav1.OwnerReference) (*api.Resource, bool) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, false
	}
	return api.ByKind(gv.Group, ref.Kind)
}

// ownerNamespace is where an owner of kind res must live for dependent
// dep: dep's namespace, or none for a cluster-scoped owner. A namespaced
// owner of a cluster-scoped dependent is invalid (ok false).
func ownerNamespace(res *api.Resource, dep api.Object) (string, bool) {
	if !res.Namespaced {
		return "", true
	}
	return dep.GetNamespace(), dep.GetNamespace() != ""
}
