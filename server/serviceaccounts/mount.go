package serviceaccounts

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
)

// Where and how upstream's ServiceAccount admission mounts the API
// credentials into every container.
const (
	// TokenMountPath holds token, ca.crt and namespace.
	TokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// TokenVolumePrefix starts the generated volume's name.
	TokenVolumePrefix = "kube-api-access-"
	// TokenExpirationSeconds is the projected token's requested life
	// (upstream's 3607, one hour and some, which tells it apart).
	TokenExpirationSeconds = 3607
)

// applyAccount gives pod the account's imagePullSecrets (when the pod
// names none) and, unless automounting is off for the pod or the account,
// the kube-api-access projected volume and its mounts.
func applyAccount(pod *corev1.Pod, sa *corev1.ServiceAccount) {
	if len(pod.Spec.ImagePullSecrets) == 0 && len(sa.ImagePullSecrets) > 0 {
		pod.Spec.ImagePullSecrets = append([]corev1.LocalObjectReference(nil), sa.ImagePullSecrets...)
	}
	if automount(pod, sa) {
		mountToken(pod)
	}
}

// automount: the pod's automountServiceAccountToken wins, then the
// account's; unset is true.
func automount(pod *corev1.Pod, sa *corev1.ServiceAccount) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	if sa.AutomountServiceAccountToken != nil {
		return *sa.AutomountServiceAccountToken
	}
	return true
}

// mountToken mounts the token volume at TokenMountPath in every container
// that has nothing there, adding the volume unless one is already named
// kube-api-access-*.
func mountToken(pod *corev1.Pod) {
	name, have := tokenVolumeName(pod)
	needed := false
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if mountsAt(&cs[i], TokenMountPath) {
				continue
			}
			cs[i].VolumeMounts = append(cs[i].VolumeMounts,
				corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: TokenMountPath})
			needed = true
		}
	}
	if needed && !have {
		pod.Spec.Volumes = append(pod.Spec.Volumes, tokenVolume(name))
	}
}

// tokenVolumeName finds the pod's kube-api-access-* volume, or makes a
// name no volume of the pod has.
func tokenVolumeName(pod *corev1.Pod) (string, bool) {
	names := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, TokenVolumePrefix) {
			return v.Name, true
		}
		names[v.Name] = true
	}
	for {
		n := TokenVolumePrefix + utilrand.String(5)
		if !names[n] {
			return n, false
		}
	}
}

func mountsAt(c *corev1.Container, path string) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}

// tokenVolume is upstream's projected volume: the bound token, the root
// CA and the namespace.
func tokenVolume(name string) corev1.Volume {
	mode, exp := int32(0o644), int64(TokenExpirationSeconds)
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &exp, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMap},
				Items: []corev1.KeyToPath{{Key: RootCAKey, Path: RootCAKey}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}}
}
