package volume

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
)

// bind ties pvc and pv together, as upstream's binder: the volume's
// claimRef and phase first, then the claim's volumeName and status. A
// conflict (someone else bound the volume) is retried by the queue.
func (c *Controller) bind(ctx context.Context, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) error {
	if ref := pv.Spec.ClaimRef; ref == nil || ref.UID != pvc.UID {
		next := pv.DeepCopy()
		next.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
			Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion}
		setAnnotation(&next.ObjectMeta, api.AnnotationBoundByController, "yes")
		updated, err := c.client.Update(ctx, next)
		if err != nil {
			return fmt.Errorf("bind volume %s to claim %s/%s: %w", pv.Name, pvc.Namespace, pvc.Name, err)
		}
		pv = updated.(*corev1.PersistentVolume)
	}
	if err := c.volumePhase(ctx, pv, corev1.VolumeBound, ""); err != nil {
		return err
	}
	claim := pvc
	if pvc.Spec.VolumeName != pv.Name || pvc.Annotations[api.AnnotationBindCompleted] == "" {
		next := pvc.DeepCopy()
		next.Spec.VolumeName = pv.Name
		setAnnotation(&next.ObjectMeta, api.AnnotationBindCompleted, "yes")
		updated, err := c.client.Update(ctx, next)
		if err != nil {
			return fmt.Errorf("bind claim %s/%s to volume %s: %w", pvc.Namespace, pvc.Name, pv.Name, err)
		}
		claim = updated.(*corev1.PersistentVolumeClaim)
	}
	next := claim.DeepCopy()
	next.Status.Phase = corev1.ClaimBound
	next.Status.AccessModes = pv.Spec.AccessModes
	next.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: capacity(pv)}
	if _, err := c.client.UpdateStatus(ctx, next); err != nil {
		return fmt.Errorf("claim %s/%s status Bound: %w", pvc.Namespace, pvc.Name, err)
	}
	return nil
}

// provision makes a local-path volume for pvc on node and binds it. The
// directory is the agent's to make (when it mounts the volume); the
// server never touches a node's disk.
func (c *Controller) provision(ctx context.Context, pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass, node string) error {
	if node == "" {
		c.events.Eventf(pvc, corev1.EventTypeWarning, "ProvisioningFailed",
			"storage class %q provisions local directories and needs volumeBindingMode WaitForFirstConsumer: no node is selected", sc.Name)
		return nil
	}
	obj, ok := c.nodes.Get("", node)
	if !ok {
		c.events.Eventf(pvc, corev1.EventTypeWarning, "ProvisioningFailed", "selected node %q not found", node)
		return nil
	}
	base := obj.GetAnnotations()[api.AnnotationLocalStoragePath]
	if base == "" {
		c.events.Eventf(pvc, corev1.EventTypeWarning, "ProvisioningFailed",
			"node %q reports no local storage path (annotation %s): is its agent running?", node, api.AnnotationLocalStoragePath)
		return nil
	}
	name := api.LocalPathVolumeName(pvc)
	if existing, ok := c.volumes.Get("", name); ok {
		return c.bind(ctx, pvc, existing.(*corev1.PersistentVolume))
	}
	created, err := c.client.Create(ctx, localPathVolume(pvc, sc, node, base))
	if err != nil {
		return fmt.Errorf("provision volume for claim %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	pv := created.(*corev1.PersistentVolume)
	c.events.Eventf(pvc, corev1.EventTypeNormal, "ProvisioningSucceeded", "Successfully provisioned volume %s on node %s", pv.Name, node)
	return c.bind(ctx, pvc, pv)
}

// localPathVolume is the PV of a local-path claim: a hostPath directory
// (DirectoryOrCreate, as k3s's provisioner) with node affinity to node,
// claimed by pvc from the start so no other claim can take it.
func localPathVolume(pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass, node, base string) *corev1.PersistentVolume {
	reclaim := corev1.PersistentVolumeReclaimDelete
	if sc.ReclaimPolicy != nil {
		reclaim = *sc.ReclaimPolicy
	}
	dirType := corev1.HostPathDirectoryOrCreate
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: api.LocalPathVolumeName(pvc),
			Annotations: map[string]string{api.AnnotationProvisionedBy: api.ProvisionerLocalPath}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: api.ClaimRequest(pvc)},
			AccessModes:                   pvc.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              sc.Name,
			VolumeMode:                    pvc.Spec.VolumeMode,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: api.LocalPathDir(base, pvc), Type: &dirType}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
		},
	}
}

func capacity(pv *corev1.PersistentVolume) resource.Quantity {
	return pv.Spec.Capacity[corev1.ResourceStorage]
}

func selects(sel *metav1.LabelSelector, l map[string]string) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labels.Set(l))
}

func setAnnotation(m *metav1.ObjectMeta, k, v string) {
	m.Annotations = maps.Clone(m.Annotations)
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[k] = v
}

func less(a, b resource.Quantity) bool { return a.Cmp(b) < 0 }
