package registry

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
)

var pdbResource = api.MustLookup("policy", "v1", "poddisruptionbudgets")

// Upstream's words for an eviction a budget refuses (kubectl drain prints
// them while it retries).
const (
	evictionRefused = "Cannot evict pod as it would violate the pod's disruption budget."
	// maxDisruptedPods bounds a budget's evictions not yet confirmed by
	// the disruption controller, as upstream does.
	maxDisruptedPods = 2000
)

// Evict deletes a pod as POST pods/{name}/eviction does: a pod that is
// finished, pending or already being deleted goes at once; otherwise the
// one PodDisruptionBudget selecting it must allow a disruption, which the
// eviction takes (disruptionsAllowed down by one, the pod listed in
// disruptedPods) before the pod is deleted. A refusal is 429 Too Many
// Requests, as upstream answers.
func (r *Registry) Evict(ctx context.Context, ns, name string, ev *policyv1.Eviction, dryRun bool) error {
	o, err := r.Get(ctx, podsResource, ns, name)
	if err != nil {
		return err
	}
	pod := o.(*corev1.Pod)
	opts := evictionDeleteOptions(ev, pod.UID, dryRun)
	if !needsBudget(pod) {
		return r.deleteEvicted(ctx, pod, opts)
	}
	pdbs, err := r.budgetsOf(ctx, pod)
	if err != nil {
		return err
	}
	switch {
	case len(pdbs) > 1:
		//lint:ignore ST1005 upstream's message, word for word
		return apierrors.NewInternalError(errors.New("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."))
	case len(pdbs) == 1:
		if err := r.takeDisruption(ctx, pdbs[0], pod, dryRun); err != nil {
			return err
		}
	}
	return r.deleteEvicted(ctx, pod, opts)
}

// needsBudget: only a pod that may be running counts against a budget.
func needsBudget(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return false
	}
	return pod.DeletionTimestamp == nil
}

func evictionDeleteOptions(ev *policyv1.Eviction, uid types.UID, dryRun bool) *DeleteOptions {
	do := &metav1.DeleteOptions{}
	if ev.DeleteOptions != nil {
		do = ev.DeleteOptions.DeepCopy()
	}
	if do.Preconditions == nil {
		do.Preconditions = &metav1.Preconditions{}
	}
	if do.Preconditions.UID == nil {
		do.Preconditions.UID = &uid
	}
	return &DeleteOptions{DeleteOptions: do, DryRun: dryRun || len(do.DryRun) > 0}
}

func (r *Registry) deleteEvicted(ctx context.Context, pod *corev1.Pod, opts *DeleteOptions) error {
	if err := r.markEvicted(ctx, pod, opts); err != nil {
		return err
	}
	_, err := r.Delete(ctx, podsResource, pod.Namespace, pod.Name, opts)
	return err
}

// budgetsOf are the budgets in the pod's namespace whose selector matches
// it (a nil selector matches nothing, an empty one everything).
func (r *Registry) budgetsOf(ctx context.Context, pod *corev1.Pod) ([]*policyv1.PodDisruptionBudget, error) {
	list, err := r.List(ctx, pdbResource, pod.Namespace, ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*policyv1.PodDisruptionBudget
	for _, o := range list.Items {
		pdb := o.(*policyv1.PodDisruptionBudget)
		if pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err == nil && sel.Matches(labels.Set(pod.Labels)) {
			out = append(out, pdb)
		}
	}
	return out, nil
}
