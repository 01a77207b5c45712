package gc

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// ownerState is what became of one owner of a dependent.
type ownerState int

const (
	ownerPresent ownerState = iota // exists (or cannot be judged)
	ownerWaiting                   // exists, being deleted in Foreground
	ownerGone                      // nothing with its UID where it must live
)

// owners sorts a dependent's references by what became of their owners.
type owners struct {
	present, waiting, gone []metav1.OwnerReference
}

// collect deletes dep when all its owners are gone or waiting for their
// dependents, or drops the references to those when another owner remains.
// It judges on the cache first and, when that calls for a write, again on
// a fresh read of dep, with every absent owner confirmed by a fresh read.
func (c *Controller) collect(ctx context.Context, res *api.Resource, dep api.Object) error {
	cached, err := c.classify(ctx, dep, false)
	if err != nil || len(cached.gone)+len(cached.waiting) == 0 {
		return err
	}
	latest, err := c.client.Get(ctx, res, dep.GetNamespace(), dep.GetName())
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s %s: %w", res.Kind, controllers.KeyOf(dep), err)
	}
	if latest.GetUID() != dep.GetUID() || latest.GetDeletionTimestamp() != nil {
		return nil // a namesake, or going anyway; its own events queue it
	}
	o, err := c.classify(ctx, latest, true)
	if err != nil {
		return err
	}
	switch {
	case len(o.gone)+len(o.waiting) == 0:
		return nil
	case len(o.present) > 0:
		drop := append(refUIDs(o.gone), refUIDs(o.waiting)...)
		return c.dropOwnerRefs(ctx, res, latest, drop)
	case len(o.waiting) > 0 && c.hasDependents(latest.GetUID()):
		return c.deleteObject(ctx, res, latest, metav1.DeletePropagationForeground)
	}
	return c.deleteObject(ctx, res, latest, policyFromFinalizers(latest))
}

// classify judges each owner of dep. With confirm, an owner the cache does
// not hold (under its UID) is read fresh before it counts as gone.
func (c *Controller) classify(ctx context.Context, dep api.Object, confirm bool) (owners, error) {
	var o owners
	for _, ref := range dep.GetOwnerReferences() {
		st, err := c.ownerState(ctx, dep, ref, confirm)
		if err != nil {
			return owners{}, err
		}
		switch st {
		case ownerPresent:
			o.present = append(o.present, ref)
		case ownerWaiting:
			o.waiting = append(o.waiting, ref)
		case ownerGone:
			o.gone = append(o.gone, ref)
		}
	}
	return o, nil
}

func (c *Controller) ownerState(ctx context.Context, dep api.Object, ref metav1.OwnerReference, confirm bool) (ownerState, error) {
	res, ok := ownerResource(ref)
	if !ok {
		return ownerPresent, nil // a kind bramble does not serve: never judged gone
	}
	ns, ok := ownerNamespace(res, dep)
	if !ok {
		c.events.Eventf(dep, corev1.EventTypeWarning, "OwnerRefInvalidNamespace",
			"ownerRef [%s, namespace: , name: %s, uid: %s] does not exist in namespace %q", ref.Kind, ref.Name, ref.UID, ns)
		return ownerGone, nil
	}
	if owner, ok := c.informers[res].Get(ns, ref.Name); ok && owner.GetUID() == ref.UID {
		return stateOf(owner), nil
	}
	if !confirm {
		return ownerGone, nil
	}
	owner, err := c.client.Get(ctx, res, ns, ref.Name)
	switch {
	case apierrors.IsNotFound(err):
		return ownerGone, nil
	case err != nil:
		return ownerPresent, fmt.Errorf("read owner %s %s/%s: %w", ref.Kind, ns, ref.Name, err)
	case owner.GetUID() != ref.UID:
		return ownerGone, nil
	}
	return stateOf(owner), nil
}

func stateOf(owner api.Object) ownerState {
	if owner.GetDeletionTimestamp() != nil && hasFinalizer(owner, FinalizerForeground) {
		return ownerWaiting
	}
	return ownerPresent
}

// policyFromFinalizers keeps the policy a dependent's own earlier deletion
// asked for; Background otherwise.
func policyFromFinalizers(o api.Object) metav1.DeletionPropagation {
	switch {
	case hasFinalizer(o, FinalizerOrphan):
		return metav1.DeletePropagationOrphan
	case hasFinalizer(o, FinalizerForeground):
		return metav1.DeletePropagationForeground
	}
	return metav1.DeletePropagationBackground
}

func refUIDs(refs []metav1.OwnerReference) []types.UID {
	out := make([]types.UID, len(refs))
	for i, r := range refs {
		out[i] = r.UID
	}
	return out
}

// hasDependents reports whether the cache holds anything owned by uid.
func (c *Controller) hasDependents(uid types.UID) bool {
	for _, inf := range c.informers {
		if len(inf.ByIndex(controllers.IndexOwner, string(uid))) > 0 {
			return true
		}
	}
	return false
}
