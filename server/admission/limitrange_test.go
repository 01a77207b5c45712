package admission

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func limitRange(items ...corev1.LimitRangeItem) *corev1.LimitRange {
	return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: "default"},
		Spec: corev1.LimitRangeSpec{Limits: items}}
}

// TestLimitRangeDefaults: a pod without requests or limits gets the
// range's defaults, and the pod says so in an annotation.
func TestLimitRangeDefaults(t *testing.T) {
	_, c := newRegistry(t)
	mustCreate(t, c, limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
		Default: hard("cpu", "500m", "memory", "256Mi"), DefaultRequest: hard("cpu", "100m")}))
	got := mustCreate(t, c, pod("bare")).(*corev1.Pod)
	r := got.Spec.Containers[0].Resources
	for name, want := range map[string]resource.Quantity{
		"limits.cpu": r.Limits[corev1.ResourceCPU], "limits.memory": r.Limits[corev1.ResourceMemory],
		"requests.cpu": r.Requests[corev1.ResourceCPU], "requests.memory": r.Requests[corev1.ResourceMemory],
	} {
		if want.IsZero() {
			t.Fatalf("%s not defaulted: %v", name, r)
		}
	}
	if r.Requests.Memory().String() != "256Mi" || r.Requests.Cpu().String() != "100m" || r.Limits.Cpu().String() != "500m" {
		t.Fatalf("got %v, want requests cpu 100m memory 256Mi (the default limit), limits cpu 500m", r)
	}
	want := "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app"
	if a := got.Annotations["kubernetes.io/limit-ranger"]; a != want {
		t.Fatalf("annotation %q, want %q", a, want)
	}
	kept := mustCreate(t, c, pod("own", "requests.cpu", "50m", "limits.cpu", "200m")).(*corev1.Pod)
	if kr := kept.Spec.Containers[0].Resources; kr.Limits.Cpu().String() != "200m" || kr.Requests.Cpu().String() != "50m" {
		t.Fatalf("own values replaced: %v", kr)
	}
}

// TestLimitRangeBounds refuses containers and pods outside min, max and
// the ratio, with upstream's messages.
func TestLimitRangeBounds(t *testing.T) {
	_, c := newRegistry(t)
	mustCreate(t, c, limitRange(
		corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Min: hard("cpu", "50m"), Max: hard("cpu", "1"),
			MaxLimitRequestRatio: hard("cpu", "4")},
		corev1.LimitRangeItem{Type: corev1.LimitTypePod, Max: hard("memory", "1Gi")}))
	ctx := context.Background()
	cases := map[string]struct {
		pod  *corev1.Pod
		want string
	}{
		"over max": {pod("big", "requests.cpu", "500m", "limits.cpu", "2", "limits.memory", "100Mi"),
			`pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2`},
		"under min": {pod("small", "requests.cpu", "10m", "limits.cpu", "20m", "limits.memory", "100Mi"),
			`pods "small" is forbidden: minimum cpu usage per Container is 50m, but request is 10m`},
		"ratio": {pod("ratio", "requests.cpu", "100m", "limits.cpu", "800m", "limits.memory", "100Mi"),
			`pods "ratio" is forbidden: cpu max limit to request ratio per Container is 4, but provided ratio is 8.000000`},
		"pod memory": {pod("mem", "requests.cpu", "100m", "limits.cpu", "200m", "limits.memory", "2Gi"),
			`pods "mem" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 2Gi`},
	}
	for name, tc := range cases {
		_, err := c.Create(ctx, tc.pod)
		if !apierrors.IsForbidden(err) {
			t.Fatalf("%s: %v, want 403", name, err)
		}
		wantError(t, err, tc.want)
	}
	mustCreate(t, c, pod("fits", "requests.cpu", "100m", "limits.cpu", "300m", "limits.memory", "100Mi"))
}

// TestLimitRangeDefaultBelowRequest: a default limit below the
// container's own request makes the pod invalid, as upstream finds.
func TestLimitRangeDefaultBelowRequest(t *testing.T) {
	_, c := newRegistry(t)
	mustCreate(t, c, limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Default: hard("cpu", "1")}))
	_, err := c.Create(context.Background(), pod("p", "requests.cpu", "2"))
	if !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want 422", err)
	}
}

// TestLimitRangeClaims holds claims' storage requests to min and max.
func TestLimitRangeClaims(t *testing.T) {
	lr := limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypePersistentVolumeClaim,
		Min: hard("storage", "1Gi"), Max: hard("storage", "10Gi")})
	claim := func(size string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{
			Resources: corev1.VolumeResourceRequirements{Requests: hard("storage", size)}}}
	}
	for size, want := range map[string]string{
		"500Mi": "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi",
		"20Gi":  "maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi",
		"5Gi":   "",
	} {
		errs := checkClaim(claim(size), lr)
		got := ""
		if len(errs) > 0 {
			got = errs[0].Error()
		}
		if got != want || len(errs) > 1 {
			t.Fatalf("claim of %s: got %v, want %q", size, errs, want)
		}
	}
}
