package statefulset

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/controllers"
)

// createPod creates pod ord and, first, its claims. Under RollingUpdate a
// pod below the partition comes back at the current revision; every
// other pod is made at the update revision.
func (c *Controller) createPod(ctx context.Context, key string, set *appsv1.StatefulSet, st *state, ord int) error {
	template, revision := &set.Spec.Template, st.revs.update.Name
	if set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && ord < st.start+partition(set) {
		template, revision = st.revs.currentTemplate, st.revs.current.Name
	}
	pod := newPod(set, template, revision, ord)
	if err := c.ensureClaims(ctx, set, pod, false); err != nil {
		return err
	}
	_, err := c.client.Create(ctx, pod)
	if apierrors.IsAlreadyExists(err) {
		return nil // the cache is behind; the next sync sees it
	}
	if err != nil {
		c.rec.Eventf(set, corev1.EventTypeWarning, "FailedCreate", "create Pod %s in StatefulSet %s failed error: %v", pod.Name, set.Name, err)
		return fmt.Errorf("create pod %s of statefulset %s: %w", pod.Name, key, err)
	}
	c.exp.ExpectCreate(key, pod.Name)
	c.rec.Eventf(set, corev1.EventTypeNormal, "SuccessfulCreate", "create Pod %s in StatefulSet %s successful", pod.Name, set.Name)
	return nil
}

// deletePod deletes pod unless it is gone already (or a namesake with
// another UID took its name).
func (c *Controller) deletePod(ctx context.Context, key string, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	err := c.client.Delete(ctx, podResource, pod.Namespace, pod.Name, controllers.DeleteOptions{UID: string(pod.UID)})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		c.rec.Eventf(set, corev1.EventTypeWarning, "FailedDelete", "delete Pod %s in StatefulSet %s failed error: %v", pod.Name, set.Name, err)
		return fmt.Errorf("delete pod %s of statefulset %s: %w", pod.Name, key, err)
	}
	c.exp.ExpectDelete(key, pod.Name, pod.UID)
	c.rec.Eventf(set, corev1.EventTypeNormal, "SuccessfulDelete", "delete Pod %s in StatefulSet %s successful", pod.Name, set.Name)
	return nil
}
