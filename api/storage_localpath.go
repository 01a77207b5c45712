package api

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The names the storage parts share (docs/STORAGE.md): the built-in
// local-path provisioner and its default class, the annotations and
// finalizers upstream's volume binder, scheduler and protection
// controllers use, with upstream's spelling so tools read them.
const (
	// ProvisionerLocalPath provisions directories on the node a claim's
	// first pod runs on.
	ProvisionerLocalPath = "bramble.io/local-path"
	// StorageClassLocalPath is the default class the server creates.
	StorageClassLocalPath = "local-path"
	// ProvisionerNone is upstream's provisioner of classes with static PVs
	// only.
	ProvisionerNone = "kubernetes.io/no-provisioner"

	// AnnotationSelectedNode is the node the scheduler picked for a
	// WaitForFirstConsumer claim.
	AnnotationSelectedNode = "volume.kubernetes.io/selected-node"
	// AnnotationStorageProvisioner names the provisioner a claim waits for.
	AnnotationStorageProvisioner = "volume.kubernetes.io/storage-provisioner"
	// AnnotationProvisionedBy names the provisioner that made a PV.
	AnnotationProvisionedBy = "pv.kubernetes.io/provisioned-by"
	// AnnotationBindCompleted marks a claim the binder has bound.
	AnnotationBindCompleted = "pv.kubernetes.io/bind-completed"
	// AnnotationBoundByController marks a bind the binder made (not a
	// pre-bound claim or volume).
	AnnotationBoundByController = "pv.kubernetes.io/bound-by-controller"

	// FinalizerPVCProtection keeps a claim while a pod uses it.
	FinalizerPVCProtection = "kubernetes.io/pvc-protection"
	// FinalizerPVProtection keeps a volume while a claim is bound to it.
	FinalizerPVProtection = "kubernetes.io/pv-protection"
)

// ClaimRequest is the storage a claim asks for (zero when unset).
func ClaimRequest(c *corev1.PersistentVolumeClaim) resource.Quantity {
	return c.Spec.Resources.Requests[corev1.ResourceStorage]
}

// ClaimClass is the claim's storage class name ("" for none).
func ClaimClass(c *corev1.PersistentVolumeClaim) string {
	if c.Spec.StorageClassName != nil {
		return *c.Spec.StorageClassName
	}
	return ""
}

// WaitsForFirstConsumer reports whether sc binds its claims only once a
// pod using them is scheduled.
func WaitsForFirstConsumer(sc *storagev1.StorageClass) bool {
	return sc != nil && sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
}

// LocalPathNode is the node a local-path or local volume lives on: the one
// hostname its required node affinity names ("" if it names none or
// several).
func LocalPathNode(pv *corev1.PersistentVolume) string {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil || len(na.Required.NodeSelectorTerms) != 1 {
		return ""
	}
	term := na.Required.NodeSelectorTerms[0]
	for _, e := range term.MatchExpressions {
		if e.Key == corev1.LabelHostname && e.Operator == corev1.NodeSelectorOpIn && len(e.Values) == 1 {
			return e.Values[0]
		}
	}
	return ""
}

// PodClaims yields the names of the claims the pod's volumes use, in
// spec order (ephemeral volumes' claims are named <pod>-<volume>).
func PodClaims(pod *corev1.Pod) []string {
	var out []string
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, pod.Name+"-"+v.Name)
		}
	}
	return out
}

// VolumeNodeMatcher compiles the PV's required node affinity; nil (every
// node) when it has none.
func VolumeNodeMatcher(pv *corev1.PersistentVolume) *NodeMatcher {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return nil
	}
	return CompileNodeMatcher(&corev1.PodSpec{Affinity: &corev1.Affinity{
		NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: na.Required}}})
}

// Node annotations the agent sets through its heartbeat: where its
// local-path volumes live and how many bytes that filesystem holds.
const (
	AnnotationLocalStoragePath     = "bramble.io/local-storage-path"
	AnnotationLocalStorageCapacity = "bramble.io/local-storage-capacity"
)

// LocalPathDir is the directory of a local-path volume for the claim,
// under the node's storage path (k3s's naming: pvc-<uid>_<ns>_<name>).
func LocalPathDir(base string, pvc *corev1.PersistentVolumeClaim) string {
	return strings.TrimRight(base, "/") + "/" + LocalPathVolumeName(pvc) + "_" + pvc.Namespace + "_" + pvc.Name
}

// LocalPathVolumeName is the PV name the provisioner gives the claim's
// volume, as upstream's provisioners do.
func LocalPathVolumeName(pvc *corev1.PersistentVolumeClaim) string {
	return "pvc-" + string(pvc.UID)
}
