package server

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/scheduler"
	"github.com/bramble-edge/bramble/server/registry"
)

var (
	_              scheduler.ClaimNodeSelector = (*schedulerBinder)(nil)
	claimsResource                             = api.MustLookup("", "v1", "persistentvolumeclaims")
)

// SelectNode writes the scheduler's node on an unbound claim
// (volume.kubernetes.io/selected-node); a bound claim is left alone.
func (b *schedulerBinder) SelectNode(ctx context.Context, namespace, claim, node string) error {
	_, err := b.reg.Mutate(ctx, registry.Mutation{
		Resource: claimsResource, Namespace: namespace, Name: claim,
		Mutate: func(obj api.Object) (api.Object, error) {
			cur := obj.(*corev1.PersistentVolumeClaim)
			if cur.Spec.VolumeName != "" || cur.Annotations[api.AnnotationSelectedNode] == node {
				return cur, nil // unchanged: not written
			}
			cur.Annotations = maps.Clone(cur.Annotations)
			if cur.Annotations == nil {
				cur.Annotations = map[string]string{}
			}
			cur.Annotations[api.AnnotationSelectedNode] = node
			return cur, nil
		},
	})
	return err
}
