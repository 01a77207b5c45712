package registry

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// markEvicted writes the DisruptionTarget condition (EvictionByEvictionAPI)
// on the pod an eviction is about to delete, as upstream's eviction
// subresource does, so that a Job's podFailurePolicy can tell an eviction
// from a failure. The write honours the delete's preconditions (UID,
// resourceVersion); a resourceVersion precondition then moves to the
// version written, so that the delete is not refused for our own write.
// A dry run writes nothing.
func (r *Registry) markEvicted(ctx context.Context, pod *corev1.Pod, opts *DeleteOptions) error {
	if opts.DryRun {
		return nil
	}
	pre := opts.DeleteOptions.Preconditions
	cond := api.DisruptionTarget(api.DisruptionByEvictionAPI, "Eviction API: evicting", r.now())
	out, err := r.Mutate(ctx, Mutation{Resource: podsResource, Namespace: pod.Namespace, Name: pod.Name, Subresource: "status",
		Mutate: func(obj api.Object) (api.Object, error) {
			cur := obj.(*corev1.Pod)
			if err := checkDeletePreconditions(podsResource, cur, pre); err != nil {
				return nil, err
			}
			api.SetPodCondition(&cur.Status, cond)
			return cur, nil
		}})
	if err != nil {
		return err
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != "" {
		rv := out.GetResourceVersion()
		pre.ResourceVersion = &rv
	}
	return nil
}
