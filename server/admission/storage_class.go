package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// LocalPathClass is the built-in default class: directories on the node
// the claim's first pod is scheduled to, removed with the claim.
func LocalPathClass() *storagev1.StorageClass {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	del := corev1.PersistentVolumeReclaimDelete
	no := false
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: api.StorageClassLocalPath,
			Annotations: map[string]string{api.AnnotationDefaultStorageClass: "true"}},
		Provisioner:          api.ProvisionerLocalPath,
		ReclaimPolicy:        &del,
		VolumeBindingMode:    &wffc,
		AllowVolumeExpansion: &no,
	}
}

// EnsureLocalPathClass creates the local-path class when it is missing
// (an operator's changes to it are kept); the server calls it at start.
func EnsureLocalPathClass(ctx context.Context, c *registry.Client) error {
	if _, err := c.Create(ctx, LocalPathClass()); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create storage class %s: %w", api.StorageClassLocalPath, err)
	}
	return nil
}
