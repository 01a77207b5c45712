package replicaset

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// manageReplicas creates or deletes pods so that rs has spec.replicas
// active pods, recording each write it made in the expectations so that
// the next sync waits for the cache to show it.
func (c *Controller) manageReplicas(ctx context.Context, rs *appsv1.ReplicaSet, owned []*corev1.Pod) error {
	create, remove := Diff(len(owned), desiredOf(rs), c.burst)
	switch {
	case create > 0:
		return c.createPods(ctx, rs, create)
	case remove > 0:
		return c.deletePods(ctx, rs, podsToDelete(owned, remove))
	}
	return nil
}

// createPods creates n pods in slow-start batches.
func (c *Controller) createPods(ctx context.Context, rs *appsv1.ReplicaSet, n int) error {
	_, err := SlowStart(ctx, n, 1, func(ctx context.Context) error { return c.createPod(ctx, rs) })
	return err
}

func (c *Controller) createPod(ctx context.Context, rs *appsv1.ReplicaSet) error {
	out, err := controllers.CreateNew(ctx, c.client, func() api.Object { return newPod(rs) })
	if err != nil {
		c.events.Eventf(rs, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
		return fmt.Errorf("create pod: %w", err)
	}
	c.exp.ExpectCreate(controllers.KeyOf(rs), out.GetName())
	c.events.Eventf(rs, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", out.GetName())
	return nil
}

// deletePods deletes the pods at once (on the pool), each only if it is
// still the pod seen (UID precondition). A pod already gone counts as deleted.
func (c *Controller) deletePods(ctx context.Context, rs *appsv1.ReplicaSet, victims []*corev1.Pod) error {
	errs := shared.parallel(len(victims), func(i int) error {
		err := c.deletePod(ctx, rs, victims[i])
		if errors.Is(err, errGone) {
			return nil
		}
		return err
	})
	return errors.Join(errs...)
}

// errGone: the pod to delete no longer exists.
var errGone = errors.New("pod already gone")

func (c *Controller) deletePod(ctx context.Context, rs *appsv1.ReplicaSet, p *corev1.Pod) error {
	err := c.client.Delete(ctx, pods, p.Namespace, p.Name, controllers.DeleteOptions{UID: string(p.UID)})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return errGone // the name is free or another pod's: ours is gone
	}
	if err != nil {
		c.events.Eventf(rs, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
		return fmt.Errorf("delete pod %s: %w", p.Name, err)
	}
	c.exp.ExpectDelete(controllers.KeyOf(rs), p.Name, p.UID)
	c.events.Eventf(rs, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
	return nil
}
