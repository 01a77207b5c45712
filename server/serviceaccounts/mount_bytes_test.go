package serviceaccounts

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The token volume and mounts serialize exactly as upstream's admission
// writes them: the volume after the pod's own, its three projected
// sources in order, a mount appended to each container without one.
func TestMountTokenBytes(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		Volumes:        []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		InitContainers: []corev1.Container{{Name: "init"}},
		Containers: []corev1.Container{{Name: "a", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}},
			{Name: "b"}}}}
	mountToken(pod)
	name := pod.Spec.Volumes[len(pod.Spec.Volumes)-1].Name
	if !strings.HasPrefix(name, TokenVolumePrefix) || len(name) != len(TokenVolumePrefix)+5 ||
		strings.Trim(name[len(TokenVolumePrefix):], "bcdfghjklmnpqrstvwxz2456789") != "" {
		t.Fatalf("token volume name %q, want kube-api-access- and five of utilrand's letters", name)
	}
	b, err := json.Marshal(pod.Spec)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(string(b), name, "kube-api-access-NAME")
	want := `{"volumes":[{"name":"data","emptyDir":{}},{"name":"kube-api-access-NAME","projected":{"sources":[` +
		`{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},` +
		`{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},` +
		`{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],` +
		`"defaultMode":420}}],` +
		`"initContainers":[{"name":"init","resources":{},"volumeMounts":[{"name":"kube-api-access-NAME","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],` +
		`"containers":[{"name":"a","resources":{},"volumeMounts":[{"name":"data","mountPath":"/data"},{"name":"kube-api-access-NAME","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]},` +
		`{"name":"b","resources":{},"volumeMounts":[{"name":"kube-api-access-NAME","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}]}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// A name never repeats one of the pod's volumes'.
func TestTokenVolumeNameAvoidsTaken(t *testing.T) {
	for range 200 {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "a"}, {Name: "b"}}}}
		name, have := tokenVolumeName(pod)
		if have || name == "a" || name == "b" || !strings.HasPrefix(name, TokenVolumePrefix) {
			t.Fatalf("got %q, %v", name, have)
		}
	}
}

// BenchmarkApplyAccount: the token volume and mount for a one-container
// pod, as every pod create without its own gets them.
func BenchmarkApplyAccount(b *testing.B) {
	sa := &corev1.ServiceAccount{}
	b.ReportAllocs()
	for range b.N {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
		applyAccount(pod, sa)
	}
}
