package serviceaccounts

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func boolp(b bool) *bool { return &b }

// applyAccount as upstream's admission: imagePullSecrets copied when the
// pod names none; the token volume unless the pod (first) or the account
// turns automounting off; containers that mount something at the path
// keep it; an existing kube-api-access-* volume is reused.
func TestApplyAccount(t *testing.T) {
	secrets := []corev1.LocalObjectReference{{Name: "regcred"}}
	for _, tc := range []struct {
		name       string
		podMount   *bool
		saMount    *bool
		podSecrets []corev1.LocalObjectReference
		wantVolume bool
		wantSecret string
	}{
		{"defaults", nil, nil, nil, true, "regcred"},
		{"account off", nil, boolp(false), nil, false, "regcred"},
		{"pod on beats account off", boolp(true), boolp(false), nil, true, "regcred"},
		{"pod off", boolp(false), nil, nil, false, "regcred"},
		{"pod names its own secrets", nil, nil, []corev1.LocalObjectReference{{Name: "mine"}}, true, "mine"},
	} {
		pod := &corev1.Pod{Spec: corev1.PodSpec{AutomountServiceAccountToken: tc.podMount, ImagePullSecrets: tc.podSecrets,
			InitContainers: []corev1.Container{{Name: "init"}}, Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}}
		sa := &corev1.ServiceAccount{AutomountServiceAccountToken: tc.saMount, ImagePullSecrets: secrets}
		applyAccount(pod, sa)
		if got := pod.Spec.ImagePullSecrets; len(got) != 1 || got[0].Name != tc.wantSecret {
			t.Errorf("%s: imagePullSecrets %v, want %s", tc.name, got, tc.wantSecret)
		}
		if got := len(pod.Spec.Volumes) == 1; got != tc.wantVolume {
			t.Errorf("%s: volumes %v, want the token volume: %v", tc.name, pod.Spec.Volumes, tc.wantVolume)
			continue
		}
		if !tc.wantVolume {
			continue
		}
		v := pod.Spec.Volumes[0]
		if !strings.HasPrefix(v.Name, TokenVolumePrefix) || len(v.Name) != len(TokenVolumePrefix)+5 || v.Projected == nil ||
			len(v.Projected.Sources) != 3 || *v.Projected.Sources[0].ServiceAccountToken.ExpirationSeconds != 3607 {
			t.Errorf("%s: volume %+v, want upstream's kube-api-access-xxxxx", tc.name, v)
		}
		for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
			if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != v.Name || c.VolumeMounts[0].MountPath != TokenMountPath || !c.VolumeMounts[0].ReadOnly {
				t.Errorf("%s: container %s mounts %v", tc.name, c.Name, c.VolumeMounts)
			}
		}
	}
}

func TestMountTokenKeepsWhatIsThere(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{{Name: "kube-api-access-abcde"}},
		Containers: []corev1.Container{{Name: "own", VolumeMounts: []corev1.VolumeMount{{Name: "x", MountPath: TokenMountPath}}},
			{Name: "plain"}}}}
	mountToken(pod)
	if len(pod.Spec.Volumes) != 1 {
		t.Fatalf("volumes %v: want the existing kube-api-access-abcde only", pod.Spec.Volumes)
	}
	if m := pod.Spec.Containers[0].VolumeMounts; len(m) != 1 || m[0].Name != "x" {
		t.Errorf("a container with its own mount there got %v", m)
	}
	if m := pod.Spec.Containers[1].VolumeMounts; len(m) != 1 || m[0].Name != "kube-api-access-abcde" {
		t.Errorf("the other container got %v, want the existing volume mounted", m)
	}
}
