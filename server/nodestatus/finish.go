package nodestatus

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/datastore"
)

// afterWrite ends the handling of a report whose status is stored: a pod
// its node finished is deleted, then the report counts as written.
func (m *Monitor) afterWrite(ctx context.Context, key podKey, want *podState) error {
	if want.finished {
		if err := m.finishPod(ctx, key, want); err != nil {
			return err
		}
	}
	m.podWritten(key, want.hash)
	return nil
}

// finishPod deletes, with grace 0 and its UID as precondition, a pod its
// node reports stopped: the last step of a graceful deletion, as the
// kubelet's status manager takes it. A node may finish only a pod bound to
// it and being deleted; the pod is read from the datastore, not the cache,
// so a stale copy never decides.
func (m *Monitor) finishPod(ctx context.Context, key podKey, want *podState) error {
	pod, err := getPod(ctx, m.cfg.Store, key.namespace, key.name)
	switch {
	case errors.Is(err, datastore.ErrNotFound):
		return nil
	case err != nil:
		return err
	case string(pod.UID) != want.uid || pod.Spec.NodeName != want.node:
		return nil
	case pod.DeletionTimestamp == nil:
		m.log.Warn("a node asked to finish a pod not being deleted; ignored",
			"node", want.node, "pod", key.namespace+"/"+key.name)
		return nil
	}
	zero := int64(0)
	err = m.cfg.Writer.Delete(ctx, podsResource, key.namespace, key.name,
		controllers.DeleteOptions{UID: want.uid, GracePeriod: &zero})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete finished pod %s/%s: %w", key.namespace, key.name, err)
	}
	return nil
}
