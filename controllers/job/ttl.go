package job

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// expireTTL deletes a finished Job whose ttlSecondsAfterFinished has
// passed (its pods follow by background cascading deletion), or requeues
// it for when it will have.
func (c *Controller) expireTTL(ctx context.Context, key string, job *batchv1.Job) error {
	ttl := job.Spec.TTLSecondsAfterFinished
	done := finishTime(job)
	if ttl == nil || done.IsZero() {
		return nil
	}
	now := c.now()
	if at := done.Add(time.Duration(*ttl) * time.Second); now.Before(at) {
		c.queue.AddAfter(key, at.Sub(now))
		return nil
	}
	err := c.client.Delete(ctx, jobResource, job.Namespace, job.Name,
		controllers.DeleteOptions{UID: string(job.UID), Propagation: metav1.DeletePropagationBackground})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete job %s after its TTL: %w", key, err)
	}
	c.log.Info("deleted finished job after its TTL", "job", key, "ttlSeconds", *ttl)
	return nil
}
