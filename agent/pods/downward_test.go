package pods

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func TestExpandEnv(t *testing.T) {
	env := []runtime.EnvVar{{Name: "POD", Value: "web-0"}, {Name: "NS", Value: "prod"}}
	for in, want := range map[string]string{
		"$(POD)":            "web-0",
		"logs/$(NS)/$(POD)": "logs/prod/web-0",
		"$$(POD)":           "$(POD)",
		"$(MISSING)/x":      "$(MISSING)/x",
		"$(POD":             "$(POD",
		"plain":             "plain",
	} {
		if got := expandEnv(in, env); got != want {
			t.Errorf("expandEnv(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestDownwardFields(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Labels = map[string]string{"tier": "web", "app": `say "hi"`}
	pod.Annotations = map[string]string{"a": "1"}
	c := &pod.Spec.Containers[0]
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
	c.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}
	cases := []struct{ path, want string }{
		{"metadata.labels", "app=\"say \\\"hi\\\"\"\ntier=\"web\""},
		{"metadata.labels['tier']", "web"},
		{"metadata.annotations", `a="1"`},
		{"status.podIPs", "10.0.0.5"},
	}
	for _, k := range cases {
		if got, err := fieldRef(pod, k.path, "10.0.0.5"); err != nil || got != k.want {
			t.Errorf("fieldRef %s: got %q (%v), want %q", k.path, got, err, k.want)
		}
	}
	res := []struct{ resource, divisor, want string }{
		{"limits.cpu", "", "1"}, {"limits.cpu", "1m", "250"}, {"limits.memory", "1Mi", "64"},
		{"requests.memory", "", "33554432"}, {"requests.cpu", "", "0"},
	}
	for _, r := range res {
		ref := &corev1.ResourceFieldSelector{Resource: r.resource}
		if r.divisor != "" {
			ref.Divisor = resource.MustParse(r.divisor)
		}
		if got, err := resourceField(pod, "app", ref); err != nil || got != r.want {
			t.Errorf("%s / %q: got %q (%v), want %q", r.resource, r.divisor, got, err, r.want)
		}
	}
	if got, err := resourceField(pod, "app", &corev1.ResourceFieldSelector{Resource: "limits.ephemeral-storage"}); err != nil || got == "0" {
		t.Errorf("unset limits.ephemeral-storage: got %q (%v), want the node's capacity", got, err)
	}
	if _, err := resourceField(pod, "nope", &corev1.ResourceFieldSelector{Resource: "limits.cpu"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown container: got %v, want an error naming it", err)
	}
}

func TestProjectedServiceAccountTokenIsRefusedByName(t *testing.T) {
	v := newVolumes(t.TempDir(), "uid-1", (&fakeStore{}).lookup)
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Volumes = []corev1.Volume{{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}}}
	err := v.prepare(context.Background(), pod)
	if err == nil || !strings.Contains(err.Error(), "kube-api-access") || !strings.Contains(err.Error(), "serviceAccountToken") {
		t.Errorf("got %v, want an error naming the volume and serviceAccountToken", err)
	}
}
