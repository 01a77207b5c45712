package statefulset

import (
	"context"
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ensureClaims creates the claims pod lacks and gives each the owners the
// retention policy asks for: the set when whenDeleted is Delete (so the
// garbage collector removes them with it), or, for a pod being scaled
// away, the pod when whenScaled is Delete. A claim being deleted blocks
// the pod: it would start without its data.
func (c *Controller) ensureClaims(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod, scaledDown bool) error {
	var errs []error
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		name := claimName(t, pod.Name)
		o, ok := c.claimInf.Get(set.Namespace, name)
		if !ok {
			errs = append(errs, c.createClaim(ctx, set, newClaim(set, t, pod.Name), pod))
			continue
		}
		claim := o.(*corev1.PersistentVolumeClaim)
		if claim.DeletionTimestamp != nil && !scaledDown {
			errs = append(errs, fmt.Errorf("claim %s/%s of pod %s is being deleted", set.Namespace, name, pod.Name))
			continue
		}
		refs := claimOwners(set, claim.OwnerReferences, pod, scaledDown)
		if slices.Equal(refs, claim.OwnerReferences) {
			continue
		}
		cp := claim.DeepCopy()
		cp.OwnerReferences = refs
		if _, err := c.client.Update(ctx, cp); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("set owners of claim %s/%s: %w", set.Namespace, name, err))
		}
	}
	return errors.Join(errs...)
}

func (c *Controller) createClaim(ctx context.Context, set *appsv1.StatefulSet, claim *corev1.PersistentVolumeClaim, pod *corev1.Pod) error {
	claim.OwnerReferences = claimOwners(set, nil, pod, false)
	_, err := c.client.Create(ctx, claim)
	if err == nil || apierrors.IsAlreadyExists(err) {
		if err == nil {
			c.rec.Eventf(set, corev1.EventTypeNormal, "SuccessfulCreate", "create Claim %s Pod %s in StatefulSet %s success", claim.Name, pod.Name, set.Name)
		}
		return nil
	}
	c.rec.Eventf(set, corev1.EventTypeWarning, "FailedCreate", "create Claim %s for Pod %s in StatefulSet %s failed error: %v", claim.Name, pod.Name, set.Name, err)
	return fmt.Errorf("create claim %s/%s: %w", set.Namespace, claim.Name, err)
}

// claimOwners is refs with the set's and the pod's references added or
// removed as the retention policy wants, others kept in order.
func claimOwners(set *appsv1.StatefulSet, refs []metav1.OwnerReference, pod *corev1.Pod, scaledDown bool) []metav1.OwnerReference {
	policy := set.Spec.PersistentVolumeClaimRetentionPolicy
	deleteWithSet, deleteWithPod := false, false
	if policy != nil {
		deleteWithSet = policy.WhenDeleted == appsv1.DeletePersistentVolumeClaimRetentionPolicyType && !scaledDown
		deleteWithPod = policy.WhenScaled == appsv1.DeletePersistentVolumeClaimRetentionPolicyType && scaledDown
	}
	out := make([]metav1.OwnerReference, 0, len(refs)+1)
	for _, r := range refs {
		if r.UID != set.UID && !(r.Kind == "Pod" && r.Name == pod.Name) {
			out = append(out, r)
		}
	}
	if deleteWithSet {
		out = append(out, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: set.Name, UID: set.UID})
	}
	if deleteWithPod && pod.UID != "" {
		out = append(out, metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
