package nodeinfo

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func TestAllocatable(t *testing.T) {
	capa := capacity(4, 3884<<20, 32<<30, 110)
	tests := []struct {
		name, reserved string
		want           map[corev1.ResourceName]string
	}{
		{"nothing reserved", "", map[corev1.ResourceName]string{"cpu": "4", "memory": "3884Mi", "ephemeral-storage": "32Gi", "pods": "110"}},
		{"pi reservation", "cpu=250m,memory=256Mi,ephemeral-storage=2Gi",
			map[corev1.ResourceName]string{"cpu": "3750m", "memory": "3628Mi", "ephemeral-storage": "30Gi", "pods": "110"}},
		{"more than there is", "cpu=8,memory=8Gi",
			map[corev1.ResourceName]string{"cpu": "0", "memory": "0", "ephemeral-storage": "32Gi", "pods": "110"}},
	}
	for _, tt := range tests {
		reserved, err := ParseReserved(tt.reserved)
		if err != nil {
			t.Fatal(err)
		}
		got := map[corev1.ResourceName]string{}
		for k, q := range allocatable(capa, reserved) {
			got[k] = q.String()
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	if c := capa[corev1.ResourceCPU]; c.String() != "4" {
		t.Errorf("capacity changed by allocatable: cpu %s, want 4", c.String())
	}
}

func TestImages(t *testing.T) {
	list := []runtime.Image{
		{Name: "docker.io/library/busybox:1.36", Digest: "sha256:aa", Size: 2 << 20},
		{Name: "docker.io/library/nginx:1.27", Digest: "sha256:bb", Size: 70 << 20},
		{Name: "docker.io/library/busybox:latest", Digest: "sha256:aa", Size: 2 << 20},
		{Name: "localhost:5000/app:v1", Digest: "sha256:cc", Size: 5 << 20},
	}
	want := []corev1.ContainerImage{
		{Names: []string{"docker.io/library/nginx:1.27", "docker.io/library/nginx@sha256:bb"}, SizeBytes: 70 << 20},
		{Names: []string{"localhost:5000/app:v1", "localhost:5000/app@sha256:cc"}, SizeBytes: 5 << 20},
		{Names: []string{"docker.io/library/busybox:1.36", "docker.io/library/busybox:latest", "docker.io/library/busybox@sha256:aa"}, SizeBytes: 2 << 20},
	}
	if got := images(list); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	many := make([]runtime.Image, 80)
	for i := range many {
		many[i] = runtime.Image{Name: "r/i:" + string(rune('A'+i)), Digest: "sha256:" + string(rune('A'+i)), Size: int64(i)}
	}
	got := images(many)
	if len(got) != maxImages || got[0].SizeBytes != 79 {
		t.Errorf("80 images: got %d, biggest %d, want %d, biggest 79", len(got), got[0].SizeBytes, maxImages)
	}
}
