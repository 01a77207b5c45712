package volume

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// syncClaim moves one claim on: protection while it is deleted, its
// status while it is bound, a volume found or provisioned while it is not.
func (c *Controller) syncClaim(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.claims.Get(ns, name)
	if !ok {
		return nil
	}
	pvc := obj.(*corev1.PersistentVolumeClaim)
	if pvc.DeletionTimestamp != nil {
		return c.releaseProtection(ctx, pvc)
	}
	if pvc.Spec.VolumeName != "" {
		return c.syncBoundClaim(ctx, pvc)
	}
	return c.bindClaim(ctx, pvc)
}

// syncBoundClaim finishes a bind (a claim pre-bound by the user or left
// half-done) and marks a claim whose volume is gone Lost.
func (c *Controller) syncBoundClaim(ctx context.Context, pvc *corev1.PersistentVolumeClaim) error {
	obj, ok := c.volumes.Get("", pvc.Spec.VolumeName)
	if !ok {
		if pvc.Status.Phase == corev1.ClaimBound {
			c.events.Eventf(pvc, corev1.EventTypeWarning, "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
			return c.claimPhase(ctx, pvc, corev1.ClaimLost)
		}
		return nil // pre-bound to a volume that does not exist yet
	}
	pv := obj.(*corev1.PersistentVolume)
	if ref := pv.Spec.ClaimRef; ref != nil && ref.UID != "" && ref.UID != pvc.UID {
		c.events.Eventf(pvc, corev1.EventTypeWarning, "FailedBinding", "volume %q already bound to a different claim.", pv.Name)
		return nil
	}
	if pvc.Status.Phase == corev1.ClaimBound && pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID == pvc.UID {
		return nil
	}
	return c.bind(ctx, pvc, pv)
}

// bindClaim finds or provisions a volume for an unbound claim, or says
// (in an Event) why it waits.
func (c *Controller) bindClaim(ctx context.Context, pvc *corev1.PersistentVolumeClaim) error {
	class := api.ClaimClass(pvc)
	var sc *storagev1.StorageClass
	if class != "" {
		if obj, ok := c.classes.Get("", class); ok {
			sc = obj.(*storagev1.StorageClass)
		}
	}
	node := pvc.Annotations[api.AnnotationSelectedNode]
	if api.WaitsForFirstConsumer(sc) && node == "" {
		if node = c.consumerNode(pvc); node == "" {
			c.events.Eventf(pvc, corev1.EventTypeNormal, "WaitForFirstConsumer", "waiting for first consumer to be created before binding")
			return nil
		}
	}
	if pv := c.findVolume(pvc, node); pv != nil {
		return c.bind(ctx, pvc, pv)
	}
	switch {
	case class == "":
		c.events.Eventf(pvc, corev1.EventTypeNormal, "FailedBinding", "no persistent volumes available for this claim and no storage class is set")
	case sc == nil:
		c.events.Eventf(pvc, corev1.EventTypeWarning, "ProvisioningFailed", "storageclass.storage.k8s.io %q not found", class)
	case sc.Provisioner == api.ProvisionerLocalPath:
		return c.provision(ctx, pvc, sc, node)
	case sc.Provisioner == api.ProvisionerNone:
		c.events.Eventf(pvc, corev1.EventTypeNormal, "FailedBinding", "no persistent volumes available for this claim and storage class %q has no provisioner", class)
	default:
		c.events.Eventf(pvc, corev1.EventTypeNormal, "ExternalProvisioning",
			"Waiting for a volume to be created either by the external provisioner '%s' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.", sc.Provisioner)
	}
	return nil
}

// findVolume is the smallest Available volume that fits the claim (and,
// when node is set, may be used on that node), or nil.
func (c *Controller) findVolume(pvc *corev1.PersistentVolumeClaim, node string) *corev1.PersistentVolume {
	var best *corev1.PersistentVolume
	for _, obj := range c.volumes.List("", nil) {
		pv := obj.(*corev1.PersistentVolume)
		if !c.fits(pvc, pv, node) {
			continue
		}
		if best == nil || less(capacity(pv), capacity(best)) {
			best = pv
		}
	}
	return best
}

// fits reports whether pv may be bound to pvc (on node, when set).
func (c *Controller) fits(pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, node string) bool {
	if pv.DeletionTimestamp != nil || pv.Spec.StorageClassName != api.ClaimClass(pvc) ||
		pv.Status.Phase != corev1.VolumeAvailable && pv.Status.Phase != corev1.VolumePending {
		return false
	}
	if ref := pv.Spec.ClaimRef; ref != nil && (ref.Namespace != pvc.Namespace || ref.Name != pvc.Name || ref.UID != "" && ref.UID != pvc.UID) {
		return false
	}
	if mode(pv.Spec.VolumeMode) != mode(pvc.Spec.VolumeMode) || less(capacity(pv), api.ClaimRequest(pvc)) {
		return false
	}
	for _, m := range pvc.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, m) {
			return false
		}
	}
	if sel := pvc.Spec.Selector; sel != nil && !selects(sel, pv.Labels) {
		return false
	}
	return node == "" || c.onNode(pv, node)
}

// onNode reports whether pv's node affinity admits node.
func (c *Controller) onNode(pv *corev1.PersistentVolume, node string) bool {
	m := api.VolumeNodeMatcher(pv)
	if m == nil {
		return true
	}
	obj, ok := c.nodes.Get("", node)
	if !ok {
		return false
	}
	return m.Matches(obj.GetLabels(), node)
}

func mode(m *corev1.PersistentVolumeMode) corev1.PersistentVolumeMode {
	if m == nil {
		return corev1.PersistentVolumeFilesystem
	}
	return *m
}

// claimPhase writes the claim's status phase.
func (c *Controller) claimPhase(ctx context.Context, pvc *corev1.PersistentVolumeClaim, phase corev1.PersistentVolumeClaimPhase) error {
	next := pvc.DeepCopy()
	next.Status.Phase = phase
	if _, err := c.client.UpdateStatus(ctx, next); err != nil {
		return fmt.Errorf("claim %s/%s status %s: %w", pvc.Namespace, pvc.Name, phase, err)
	}
	return nil
}

// consumerNode is the node of a pod using pvc that was placed without the
// scheduler (spec.nodeName set at create), which therefore wrote no
// selected node on the claim; "" when there is none.
func (c *Controller) consumerNode(pvc *corev1.PersistentVolumeClaim) string {
	for _, o := range c.pods.ByIndex(indexClaim, controllers.KeyOf(pvc)) {
		if pod := o.(*corev1.Pod); pod.Spec.NodeName != "" && pod.DeletionTimestamp == nil {
			return pod.Spec.NodeName
		}
	}
	return ""
}
