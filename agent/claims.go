package agent

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/pods"
	"github.com/bramble-edge/bramble/mqtt"
)

var _ pods.ClaimLookup = (*Store)(nil).Claim

// Claim finds the volume bound to the claim namespace/name in the local
// store (the publisher sends a pod's claims with it, and the volumes
// whose node affinity names this node), so pods with claims restart
// without the server; it is a pods.ClaimLookup.
func (s *Store) Claim(_ context.Context, namespace, name string) (*corev1.PersistentVolume, error) {
	var pvc corev1.PersistentVolumeClaim
	err := s.decode(mqtt.ObjectRef{Resource: mqtt.ResourceClaims, Namespace: namespace, Name: name}, &pvc)
	if errors.Is(err, pods.ErrNotFound) {
		return nil, fmt.Errorf("persistentvolumeclaim %q not found", name)
	}
	if err != nil {
		return nil, err
	}
	if pvc.Spec.VolumeName == "" || pvc.Status.Phase != corev1.ClaimBound {
		return nil, fmt.Errorf("persistentvolumeclaim %q is not bound yet", name)
	}
	var pv corev1.PersistentVolume
	err = s.decode(mqtt.ObjectRef{Resource: mqtt.ResourceVolumes, Name: pvc.Spec.VolumeName}, &pv)
	if errors.Is(err, pods.ErrNotFound) {
		return nil, fmt.Errorf("persistentvolume %q of claim %q is not on node (its node affinity names another node, or none)", pvc.Spec.VolumeName, name)
	}
	if err != nil {
		return nil, err
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.UID != pvc.UID {
		return nil, fmt.Errorf("persistentvolume %q is not bound to claim %q", pv.Name, name)
	}
	return &pv, nil
}
