package statefulset

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/controllers"
)

// claimPods adopts the orphan pods that carry one of the set's pod names
// and match its selector (left behind by `kubectl delete sts
// --cascade=orphan`, say), and releases the pods it owns that no longer
// match. Changes land through the client; the cache brings them to the
// next sync.
func (c *Controller) claimPods(ctx context.Context, set *appsv1.StatefulSet) error {
	sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil || sel.Empty() {
		return nil // validation refuses such sets; nothing to claim by
	}
	var errs []error
	for _, o := range c.podInf.ByIndex(controllers.IndexOrphan, set.Namespace) {
		pod := o.(*corev1.Pod)
		if _, member := ordinalOf(set, pod.Name); member && pod.DeletionTimestamp == nil &&
			metav1.GetControllerOfNoCopy(pod) == nil && sel.Matches(labels.Set(pod.Labels)) {
			errs = append(errs, c.setOwner(ctx, set, pod, true))
		}
	}
	for _, o := range c.podInf.ByIndex(controllers.IndexOwner, string(set.UID)) {
		pod := o.(*corev1.Pod)
		if metav1.IsControlledBy(pod, set) && !sel.Matches(labels.Set(pod.Labels)) {
			errs = append(errs, c.setOwner(ctx, set, pod, false))
		}
	}
	return errors.Join(errs...)
}

// setOwner adds (adopt) or removes the set's controller reference on pod;
// the pod's resourceVersion guards against a change in between.
func (c *Controller) setOwner(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod, adopt bool) error {
	cp := pod.DeepCopy()
	cp.OwnerReferences = nil
	for _, r := range pod.OwnerReferences {
		if r.UID != set.UID {
			cp.OwnerReferences = append(cp.OwnerReferences, r)
		}
	}
	if adopt {
		cp.OwnerReferences = append(cp.OwnerReferences, *metav1.NewControllerRef(set, setKind))
	}
	_, err := c.client.Update(ctx, cp)
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or changed: the next sync looks again
	}
	return fmt.Errorf("set owner of pod %s/%s: %w", pod.Namespace, pod.Name, err)
}
