package podgc

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// failAndDelete force-deletes a pod no node will finish, as upstream's
// collector does: a pod not finished yet is first written Failed, with
// cond (DisruptionTarget) when one is given, through a status write, so
// that a Job counts it as failed and its podFailurePolicy can tell a
// disruption from a failure of the pod's own. No node would ever write
// that phase: the pod would stay Running to its owner until it vanished.
// A status write that loses a race leaves the pod for the next pass.
func (c *Controller) failAndDelete(ctx context.Context, pod *corev1.Pod, why string, cond *corev1.PodCondition) error {
	if err := c.markFailed(ctx, pod, cond); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("mark pod %s failed before deleting it (%s): %w", controllers.KeyOf(pod), why, err)
	}
	return c.forceDelete(ctx, pod, why)
}

// markFailed writes Failed (and cond) on a copy of a pod not finished.
func (c *Controller) markFailed(ctx context.Context, pod *corev1.Pod, cond *corev1.PodCondition) error {
	if api.Terminal(pod) {
		return nil
	}
	next := pod.DeepCopy()
	next.Status.Phase = corev1.PodFailed
	if cond != nil {
		api.SetPodCondition(&next.Status, *cond)
	}
	_, err := c.client.UpdateStatus(ctx, next)
	return err
}
