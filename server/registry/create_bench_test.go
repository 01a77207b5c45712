package registry

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// BenchmarkCreatePodDryRun is the admission of a ReplicaSet's pod
// (defaults, strategy, validation), without the store write.
func BenchmarkCreatePodDryRun(b *testing.B) {
	reg, ctx := newTestRegistry(b), context.Background()
	res := api.MustLookup("", "v1", "pods")
	isController := true
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-7d4b9c-x2k9q", Namespace: "default",
			Labels: map[string]string{"app": "web", "pod-template-hash": "7d4b9c"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d4b9c",
				UID: "4c1e8a52-0b8e-4a43-9d53-1f0c8a9e2b11", Controller: &isController}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")}}}}}}
		if _, err := reg.Create(ctx, res, "default", pod, WriteOptions{DryRun: true}); err != nil {
			b.Fatal(err)
		}
	}
}
