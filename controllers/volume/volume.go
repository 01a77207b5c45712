package volume

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// syncVolume keeps a volume's phase in step with its claim, reclaims a
// Released volume, and lifts its protection once no claim holds it.
func (c *Controller) syncVolume(ctx context.Context, name string) error {
	obj, ok := c.volumes.Get("", name)
	if !ok {
		return nil
	}
	pv := obj.(*corev1.PersistentVolume)
	bound := c.boundClaim(pv)
	if pv.DeletionTimestamp != nil {
		if bound {
			return nil // pv-protection holds it while a claim is bound
		}
		return c.dropFinalizer(ctx, pv, api.FinalizerPVProtection)
	}
	switch {
	case pv.Spec.ClaimRef == nil:
		return c.volumePhase(ctx, pv, corev1.VolumeAvailable, "")
	case bound:
		return c.volumePhase(ctx, pv, corev1.VolumeBound, "")
	case c.claimExists(pv):
		return nil // the claim is being bound to it (provisioned or pre-bound)
	}
	return c.reclaim(ctx, pv)
}

// boundClaim reports whether the claim pv names exists, is the same claim
// (UID) and names pv back.
func (c *Controller) boundClaim(pv *corev1.PersistentVolume) bool {
	ref := pv.Spec.ClaimRef
	if ref == nil {
		return false
	}
	obj, ok := c.claims.Get(ref.Namespace, ref.Name)
	return ok && (ref.UID == "" || obj.GetUID() == ref.UID) && obj.(*corev1.PersistentVolumeClaim).Spec.VolumeName == pv.Name
}

// claimExists reports whether the claim pv names is still there (the same
// one, by UID), bound or not.
func (c *Controller) claimExists(pv *corev1.PersistentVolume) bool {
	ref := pv.Spec.ClaimRef
	obj, ok := c.claims.Get(ref.Namespace, ref.Name)
	return ok && (ref.UID == "" || obj.GetUID() == ref.UID)
}

// reclaim handles a volume whose claim is gone: Released; with Delete a
// local-path volume is deleted (its agent then removes the directory),
// any other is Failed as upstream's binder leaves a volume it has no
// deleter for.
func (c *Controller) reclaim(ctx context.Context, pv *corev1.PersistentVolume) error {
	switch {
	case pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete:
		return c.volumePhase(ctx, pv, corev1.VolumeReleased, "")
	case pv.Annotations[api.AnnotationProvisionedBy] == api.ProvisionerLocalPath:
		err := c.client.Delete(ctx, volumesRes, "", pv.Name, controllers.DeleteOptions{UID: string(pv.UID)})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete released volume %s: %w", pv.Name, err)
		}
		return nil
	}
	msg := "error getting deleter volume plugin for volume \"" + pv.Name + "\": no deletable volume plugin matched"
	c.events.Eventf(pv, corev1.EventTypeWarning, "VolumeFailedDelete", "%s", msg)
	return c.volumePhase(ctx, pv, corev1.VolumeFailed, msg)
}

// volumePhase writes the volume's status phase (and message) if it differs.
func (c *Controller) volumePhase(ctx context.Context, pv *corev1.PersistentVolume, phase corev1.PersistentVolumePhase, msg string) error {
	if pv.Status.Phase == phase && pv.Status.Message == msg {
		return nil
	}
	next := pv.DeepCopy()
	next.Status.Phase, next.Status.Message = phase, msg
	if _, err := c.client.UpdateStatus(ctx, next); err != nil {
		return fmt.Errorf("volume %s status %s: %w", pv.Name, phase, err)
	}
	return nil
}

// releaseProtection lifts pvc-protection from a claim being deleted once
// no pod that may still run uses it (upstream: a pod that is not
// Succeeded or Failed).
func (c *Controller) releaseProtection(ctx context.Context, pvc *corev1.PersistentVolumeClaim) error {
	for _, o := range c.pods.ByIndex(indexClaim, controllers.KeyOf(pvc)) {
		if ph := o.(*corev1.Pod).Status.Phase; ph != corev1.PodSucceeded && ph != corev1.PodFailed {
			return nil // the pod's deletion queues the claim again
		}
	}
	return c.dropFinalizer(ctx, pvc, api.FinalizerPVCProtection)
}

// dropFinalizer removes f from obj's finalizers, if there.
func (c *Controller) dropFinalizer(ctx context.Context, obj api.Object, f string) error {
	if !slices.Contains(obj.GetFinalizers(), f) {
		return nil
	}
	next := obj.DeepCopyObject().(api.Object)
	next.SetFinalizers(slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(s string) bool { return s == f }))
	if _, err := c.client.Update(ctx, next); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove finalizer %s from %s: %w", f, controllers.KeyOf(obj), err)
	}
	return nil
}
