package pods

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// TestClaimVolumes: a local-path volume's directory is made (0777) on
// first mount; readOnly on the claim source makes the mounts read-only;
// subPath works inside it; a claim not yet bound is an error naming it.
func TestClaimVolumes(t *testing.T) {
	dir := t.TempDir()
	storage := filepath.Join(dir, "storage", "pvc-1_default_data")
	pvs := map[string]*corev1.PersistentVolume{"data": {
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-1", Annotations: map[string]string{api.AnnotationProvisionedBy: api.ProvisionerLocalPath}},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: storage}}}}}
	v := newVolumes(dir, "uid-1", (&fakeStore{}).lookup)
	v.claims = func(_ context.Context, ns, name string) (*corev1.PersistentVolume, error) {
		if pv, ok := pvs[name]; ok && ns == "default" {
			return pv, nil
		}
		return nil, errors.New(`persistentvolumeclaim "` + name + `" is not bound yet`)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: "rw", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
		{Name: "ro", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data", ReadOnly: true}}},
	}}}
	if err := v.prepare(context.Background(), pod); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	if fi, err := os.Stat(storage); err != nil || fi.Mode().Perm() != 0o777 || !fi.IsDir() {
		t.Fatalf("local-path directory: got %v, %v; want a 0777 directory", fi, err)
	}
	c := &corev1.Container{VolumeMounts: []corev1.VolumeMount{{Name: "rw", MountPath: "/data", SubPath: "sub"}, {Name: "ro", MountPath: "/ro"}}}
	ms, err := v.mounts(c, nil)
	if err != nil {
		t.Fatalf("mounts: %v", err)
	}
	if ms[0].HostPath != filepath.Join(storage, "sub") || ms[0].ReadOnly || !ms[1].ReadOnly {
		t.Errorf("mounts: got %+v, want %s/sub read-write and the read-only claim read-only", ms, storage)
	}
	pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName = "later"
	if err := v.prepare(context.Background(), pod); err == nil || !strings.Contains(err.Error(), `"later" is not bound yet`) {
		t.Errorf("unbound claim: got %v, want it named", err)
	}
}
