package admission

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

var storageClassesResource = api.MustLookup("storage.k8s.io", "v1", "storageclasses")

// Storage is the admission of claims and volumes, as upstream's
// DefaultStorageClass, StorageObjectInUseProtection and
// PersistentVolumeClaimResize plugins: a new claim without a class gets
// the default one, new claims and volumes get their protection
// finalizers, and a claim may grow only when its class allows expansion
// (never on local-path, whose directories have no size to grow).
type Storage struct {
	reg *registry.Registry
}

var _ registry.Admitter = (*Storage)(nil)

// NewStorage makes the storage plugin on reg.
func NewStorage(reg *registry.Registry) *Storage { return &Storage{reg: reg} }

// Admit defaults and protects claims and volumes and checks resizes.
func (s *Storage) Admit(ctx context.Context, a *registry.Attributes) (func(bool), error) {
	if a.Subresource != "" {
		return nil, nil
	}
	switch obj := a.Object.(type) {
	case *corev1.PersistentVolumeClaim:
		if a.Create() {
			addFinalizer(obj, api.FinalizerPVCProtection)
			return nil, s.defaultClass(ctx, obj)
		}
		return nil, s.admitResize(ctx, a, obj, a.Old.(*corev1.PersistentVolumeClaim))
	case *corev1.PersistentVolume:
		if a.Create() {
			addFinalizer(obj, api.FinalizerPVProtection)
		}
	}
	return nil, nil
}

type finalized interface {
	GetFinalizers() []string
	SetFinalizers([]string)
}

func addFinalizer(o finalized, f string) {
	if !slices.Contains(o.GetFinalizers(), f) {
		o.SetFinalizers(append(o.GetFinalizers(), f))
	}
}

// defaultClass gives a claim without storageClassName the default class,
// if there is one (an explicit "" asks for no class and is kept).
func (s *Storage) defaultClass(ctx context.Context, c *corev1.PersistentVolumeClaim) error {
	if c.Spec.StorageClassName != nil {
		return nil
	}
	l, err := s.reg.List(ctx, storageClassesResource, "", registry.ListOptions{})
	if err != nil {
		return fmt.Errorf("list storage classes: %w", err)
	}
	classes := make([]*storagev1.StorageClass, 0, len(l.Items))
	for _, o := range l.Items {
		classes = append(classes, o.(*storagev1.StorageClass))
	}
	if def := api.DefaultStorageClass(classes); def != nil {
		c.Spec.StorageClassName = &def.Name
	}
	return nil
}

// admitResize refuses a larger request unless the claim is bound and its
// class allows expansion and is not local-path.
func (s *Storage) admitResize(ctx context.Context, a *registry.Attributes, c, old *corev1.PersistentVolumeClaim) error {
	now, was := api.ClaimRequest(c), api.ClaimRequest(old)
	if now.Cmp(was) <= 0 {
		return nil
	}
	if old.Spec.VolumeName == "" {
		return forbidden(a, "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims")
	}
	sc, err := s.class(ctx, api.ClaimClass(old))
	if err != nil {
		return err
	}
	switch {
	case sc != nil && sc.Provisioner == api.ProvisionerLocalPath:
		return forbidden(a, fmt.Sprintf("volumes of storage class %q (provisioner %s) cannot be expanded: a local-path volume is a directory on its node with no size of its own", sc.Name, sc.Provisioner))
	case sc == nil || sc.AllowVolumeExpansion == nil || !*sc.AllowVolumeExpansion:
		return forbidden(a, "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize")
	}
	return nil
}

// class reads the storage class name; nil when it does not exist.
func (s *Storage) class(ctx context.Context, name string) (*storagev1.StorageClass, error) {
	if name == "" {
		return nil, nil
	}
	o, err := s.reg.Get(ctx, storageClassesResource, "", name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get storage class %s: %w", name, err)
	}
	return o.(*storagev1.StorageClass), nil
}
