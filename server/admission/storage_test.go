package admission

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func claim(name string, class *string, size string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class,
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse(size)}}}}
}

// TestStorageDefaultsClassAndFinalizers: a claim without a class gets
// local-path (created by InstallPolicy) and the protection finalizer; an
// explicit "" stays; a volume gets its finalizer.
func TestStorageDefaultsClassAndFinalizers(t *testing.T) {
	_, c := newRegistry(t)
	got := mustCreate(t, c, claim("a", nil, "1Gi")).(*corev1.PersistentVolumeClaim)
	if cls := api.ClaimClass(got); cls != api.StorageClassLocalPath {
		t.Errorf("class: got %q, want %q", cls, api.StorageClassLocalPath)
	}
	if !slices.Contains(got.Finalizers, api.FinalizerPVCProtection) {
		t.Errorf("finalizers: got %v, want %s", got.Finalizers, api.FinalizerPVCProtection)
	}
	empty := ""
	got = mustCreate(t, c, claim("b", &empty, "1Gi")).(*corev1.PersistentVolumeClaim)
	if got.Spec.StorageClassName == nil || *got.Spec.StorageClassName != "" {
		t.Errorf("explicit empty class: got %v, want \"\"", got.Spec.StorageClassName)
	}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv1"},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/srv/pv1"}}}}
	gotPV := mustCreate(t, c, pv).(*corev1.PersistentVolume)
	if !slices.Contains(gotPV.Finalizers, api.FinalizerPVProtection) {
		t.Errorf("pv finalizers: got %v, want %s", gotPV.Finalizers, api.FinalizerPVProtection)
	}
	cls, err := c.Get(context.Background(), storageClassesResource, "", api.StorageClassLocalPath)
	if err != nil || !api.WaitsForFirstConsumer(cls.(*storagev1.StorageClass)) {
		t.Errorf("local-path class: got %v, %v; want WaitForFirstConsumer", cls, err)
	}
}

// TestStorageRefusesLocalPathExpansion: growing a bound local-path claim
// is refused with a message naming the class; shrinking is not ours.
func TestStorageRefusesLocalPathExpansion(t *testing.T) {
	_, c := newRegistry(t)
	ctx := context.Background()
	got := mustCreate(t, c, claim("a", nil, "1Gi")).(*corev1.PersistentVolumeClaim)
	got.Spec.VolumeName = "pv-a"
	bound, err := c.Update(ctx, got)
	if err != nil {
		t.Fatalf("bind: %v", err)
	}
	grow := bound.(*corev1.PersistentVolumeClaim).DeepCopy()
	grow.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	_, err = c.Update(ctx, grow)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `storage class "local-path"`) {
		t.Fatalf("expansion: got %v, want Forbidden naming local-path", err)
	}
	unbound := mustCreate(t, c, claim("b", nil, "1Gi")).(*corev1.PersistentVolumeClaim)
	unbound.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	if _, err := c.Update(ctx, unbound); !apierrors.IsForbidden(err) {
		t.Fatalf("unbound expansion: got %v, want Forbidden", err)
	}
}
