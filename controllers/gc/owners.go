package gc

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// dependent is a cached object owned by the owner at hand.
type dependent struct {
	res *api.Resource
	obj api.Object
}

// dependents lists what the cache holds owned by uid.
func (c *Controller) dependents(uid types.UID) []dependent {
	var out []dependent
	for res, inf := range c.informers {
		for _, o := range inf.ByIndex(controllers.IndexOwner, string(uid)) {
			out = append(out, dependent{res, o})
		}
	}
	return out
}

// deleteDependents handles an owner deleted in Foreground: each dependent
// not yet going is queued (collect then deletes it, as its owner is
// waiting), and once none that blocks the owner is left the finalizer goes.
func (c *Controller) deleteDependents(ctx context.Context, res *api.Resource, owner api.Object) error {
	blocking := 0
	for _, d := range c.dependents(owner.GetUID()) {
		if blocks(d.obj, owner.GetUID()) {
			blocking++
		}
		if d.obj.GetDeletionTimestamp() == nil {
			c.enqueue(d.res, d.obj)
		}
	}
	if blocking > 0 {
		return nil // each dependent's deletion queues the owner again
	}
	return c.removeFinalizer(ctx, res, owner, FinalizerForeground)
}

// blocks: dep's reference to owner has blockOwnerDeletion.
func blocks(dep api.Object, owner types.UID) bool {
	for _, r := range dep.GetOwnerReferences() {
		if r.UID == owner && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// orphanDependents handles an owner deleted with Orphan: every dependent
// loses its reference to the owner, then the owner its finalizer.
func (c *Controller) orphanDependents(ctx context.Context, res *api.Resource, owner api.Object) error {
	for _, d := range c.dependents(owner.GetUID()) {
		if err := c.dropOwnerRefs(ctx, d.res, d.obj, []types.UID{owner.GetUID()}); err != nil {
			return err
		}
	}
	return c.removeFinalizer(ctx, res, owner, FinalizerOrphan)
}

// dropOwnerRefs removes the references to uids from obj as stored now.
func (c *Controller) dropOwnerRefs(ctx context.Context, res *api.Resource, obj api.Object, uids []types.UID) error {
	return c.updateFresh(ctx, res, obj, func(o api.Object) bool {
		refs := o.GetOwnerReferences()
		kept := slices.DeleteFunc(slices.Clone(refs), func(r metav1.OwnerReference) bool { return slices.Contains(uids, r.UID) })
		if len(kept) == len(refs) {
			return false
		}
		o.SetOwnerReferences(kept)
		return true
	})
}

// removeFinalizer takes f off the stored owner; with it the last
// finalizer, the server removes the owner.
func (c *Controller) removeFinalizer(ctx context.Context, res *api.Resource, owner api.Object, f string) error {
	return c.updateFresh(ctx, res, owner, func(o api.Object) bool {
		fins := o.GetFinalizers()
		kept := slices.DeleteFunc(slices.Clone(fins), func(x string) bool { return x == f })
		if len(kept) == len(fins) {
			return false
		}
		o.SetFinalizers(kept)
		return true
	})
}

// updateFreshAttempts bounds the conflicts one update absorbs in place.
const updateFreshAttempts = 4

// updateFresh reads obj fresh, applies change (false: nothing to do) and
// writes it back with its resourceVersion, retrying on conflict. An object
// gone or replaced by a namesake is left alone.
func (c *Controller) updateFresh(ctx context.Context, res *api.Resource, obj api.Object, change func(api.Object) bool) error {
	for attempt := 1; ; attempt++ {
		cur, err := c.client.Get(ctx, res, obj.GetNamespace(), obj.GetName())
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s %s: %w", res.Kind, controllers.KeyOf(obj), err)
		}
		if cur.GetUID() != obj.GetUID() || !change(cur) {
			return nil
		}
		_, err = c.client.Update(ctx, cur)
		switch {
		case err == nil, apierrors.IsNotFound(err):
			return nil
		case apierrors.IsConflict(err) && attempt < updateFreshAttempts:
			continue
		}
		return fmt.Errorf("update %s %s: %w", res.Kind, controllers.KeyOf(obj), err)
	}
}

// deleteObject deletes obj (that UID only) with policy.
func (c *Controller) deleteObject(ctx context.Context, res *api.Resource, obj api.Object, policy metav1.DeletionPropagation) error {
	err := c.client.Delete(ctx, res, obj.GetNamespace(), obj.GetName(),
		controllers.DeleteOptions{UID: string(obj.GetUID()), Propagation: policy})
	if err == nil {
		c.log.Debug("deleted dependent", "resource", res.Name, "object", controllers.KeyOf(obj), "propagation", policy)
		return nil
	}
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone already, or a namesake
	}
	return fmt.Errorf("delete %s %s: %w", res.Kind, controllers.KeyOf(obj), err)
}
