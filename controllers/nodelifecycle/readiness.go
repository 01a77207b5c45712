package nodelifecycle

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// ReasonNodeNotReady is the reason a pod's Ready condition turns False
// when its node stops being Ready; the agent's next report sets it again.
const ReasonNodeNotReady = "NodeNotReady"

// markNotReady turns a pod's Ready condition False (its node is
// unreachable, so nothing vouches for it), as Kubernetes' node controller
// does, so that controllers stop counting it as available.
func (c *Controller) markNotReady(ctx context.Context, pod *corev1.Pod) error {
	i := readyCondition(pod)
	if i < 0 || pod.Status.Conditions[i].Status == corev1.ConditionFalse {
		return nil
	}
	upd := pod.DeepCopy()
	cond := &upd.Status.Conditions[i]
	cond.Status = corev1.ConditionFalse
	cond.Reason = ReasonNodeNotReady
	cond.Message = fmt.Sprintf("node %s is not ready", pod.Spec.NodeName)
	cond.LastTransitionTime = metav1.NewTime(c.now().UTC())
	_, err := c.client.UpdateStatus(ctx, upd)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("mark pod %s not ready: %w", controllers.KeyOf(pod), err)
	}
	return nil
}

func readyCondition(pod *corev1.Pod) int {
	for i, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return i
		}
	}
	return -1
}
