package replicaset

import (
	"context"
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// claim is what claimPods does with one candidate pod.
type claim int

const (
	ignore  claim = iota // another controller's, or neither matching nor ours
	keep                 // ours and matching
	release              // ours, no longer matching
	adopt                // an orphan that matches
)

// claimOf decides one pod's fate. A ReplicaSet being deleted neither
// adopts nor releases; a pod being deleted is not adopted.
func claimOf(rs *appsv1.ReplicaSet, sel labels.Selector, pod *corev1.Pod) claim {
	matches := !sel.Empty() && sel.Matches(labels.Set(pod.Labels))
	deleting := rs.DeletionTimestamp != nil
	ref := metav1.GetControllerOfNoCopy(pod) // read only: no copy
	switch {
	case ref != nil && ref.UID != rs.UID:
		return ignore
	case ref != nil && matches:
		return keep
	case ref != nil && !deleting:
		return release
	case ref == nil && matches && !deleting && pod.DeletionTimestamp == nil:
		return adopt
	}
	return ignore
}

// claimPods returns the pods rs controls after adopting the orphans its
// selector matches and releasing the pods it controls but no longer
// matches.
func (c *Controller) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, sel labels.Selector, candidates []*corev1.Pod) ([]*corev1.Pod, error) {
	var (
		owned   []*corev1.Pod
		errs    []error
		checked bool // rs was re-read from the API before the first adoption
	)
	for _, pod := range candidates {
		switch claimOf(rs, sel, pod) {
		case keep:
			owned = append(owned, pod)
		case release:
			errs = append(errs, c.release(ctx, rs, pod))
		case adopt:
			if !checked {
				if err := c.canAdopt(ctx, rs); err != nil {
					return owned, err
				}
				checked = true
			}
			adopted, err := c.adopt(ctx, rs, pod)
			errs = append(errs, err)
			if adopted != nil {
				owned = append(owned, adopted)
			}
		}
	}
	return owned, errors.Join(errs...)
}

// canAdopt re-reads rs past the cache: a ReplicaSet deleted (or deleted
// and created again) meanwhile must not adopt.
func (c *Controller) canAdopt(ctx context.Context, rs *appsv1.ReplicaSet) error {
	fresh, err := c.client.Get(ctx, replicaSets, rs.Namespace, rs.Name)
	if err != nil {
		return fmt.Errorf("re-read replicaset %s before adopting: %w", rs.Name, err)
	}
	if fresh.GetUID() != rs.UID {
		return fmt.Errorf("replicaset %s was replaced (uid %s, cached %s); not adopting", rs.Name, fresh.GetUID(), rs.UID)
	}
	if fresh.GetDeletionTimestamp() != nil {
		return fmt.Errorf("replicaset %s is being deleted; not adopting", rs.Name)
	}
	return nil
}

// adopt makes rs the pod's controller; a pod gone meanwhile is skipped.
func (c *Controller) adopt(ctx context.Context, rs *appsv1.ReplicaSet, pod *corev1.Pod) (*corev1.Pod, error) {
	p := pod.DeepCopy()
	p.OwnerReferences = append(p.OwnerReferences, *metav1.NewControllerRef(rs, replicaSetKind))
	out, err := c.client.Update(ctx, p)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("adopt pod %s: %w", pod.Name, err)
	}
	c.log.Debug("adopted pod", "replicaset", rs.Name, "pod", pod.Name)
	return out.(*corev1.Pod), nil
}

// release removes rs's reference from a pod it no longer selects.
func (c *Controller) release(ctx context.Context, rs *appsv1.ReplicaSet, pod *corev1.Pod) error {
	p := pod.DeepCopy()
	p.OwnerReferences = slices.DeleteFunc(p.OwnerReferences, func(r metav1.OwnerReference) bool {
		return r.UID == rs.UID
	})
	_, err := c.client.Update(ctx, p)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("release pod %s: %w", pod.Name, err)
	}
	c.log.Debug("released pod", "replicaset", rs.Name, "pod", pod.Name)
	return nil
}
