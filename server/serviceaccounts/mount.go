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
		addTokenVolume(pod, name)
	}
}

// tokenVolumeName finds the pod's kube-api-access-* volume, or makes a
// name no volume of the pod has (five of utilrand.String's letters, in
// one allocation).
func tokenVolumeName(pod *corev1.Pod) (string, bool) {
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, TokenVolumePrefix) {
			return v.Name, true
		}
	}
	var buf [len(TokenVolumePrefix) + 5]byte
	copy(buf[:], TokenVolumePrefix)
	for {
		for i := len(TokenVolumePrefix); i < len(buf); i++ {
			buf[i] = nameLetters[utilrand.Intn(len(nameLetters))]
		}
		if !hasVolume(pod, buf[:]) {
			return string(buf[:]), false
		}
	}
}

// nameLetters are utilrand.String's: no vowels, no look-alikes.
const nameLetters = "bcdfghjklmnpqrstvwxz2456789"

func hasVolume(pod *corev1.Pod, name []byte) bool {
	for _, v := range pod.Spec.Volumes {
		if v.Name == string(name) {
			return true
		}
	}
	return false
}

func mountsAt(c *corev1.Container, path string) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}

// tokenParts is everything the token volume points to, allocated as one:
// it was ten allocations a pod. The slices are full (len == cap), so an
// append to one copies rather than writes into its neighbour.
type tokenParts struct {
	volume    [1]corev1.Volume // the pod's Volumes when it had none
	projected corev1.ProjectedVolumeSource
	sources   [3]corev1.VolumeProjection
	token     corev1.ServiceAccountTokenProjection
	rootCA    corev1.ConfigMapProjection
	caItems   [1]corev1.KeyToPath
	downward  corev1.DownwardAPIProjection
	nsItems   [1]corev1.DownwardAPIVolumeFile
	nsField   corev1.ObjectFieldSelector
	mode      int32
	exp       int64
}

// addTokenVolume appends upstream's projected volume named name: the
// bound token, the root CA and the namespace.
func addTokenVolume(pod *corev1.Pod, name string) {
	t := &tokenParts{mode: 0o644, exp: TokenExpirationSeconds}
	t.token = corev1.ServiceAccountTokenProjection{ExpirationSeconds: &t.exp, Path: "token"}
	t.caItems[0] = corev1.KeyToPath{Key: RootCAKey, Path: RootCAKey}
	t.rootCA = corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMap},
		Items: t.caItems[:]}
	t.nsField = corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}
	t.nsItems[0] = corev1.DownwardAPIVolumeFile{Path: "namespace", FieldRef: &t.nsField}
	t.downward.Items = t.nsItems[:]
	t.sources = [3]corev1.VolumeProjection{{ServiceAccountToken: &t.token}, {ConfigMap: &t.rootCA}, {DownwardAPI: &t.downward}}
	t.projected = corev1.ProjectedVolumeSource{Sources: t.sources[:], DefaultMode: &t.mode}
	v := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &t.projected}}
	if len(pod.Spec.Volumes) == 0 {
		t.volume[0] = v
		pod.Spec.Volumes = t.volume[:]
		return
	}
	pod.Spec.Volumes = append(pod.Spec.Volumes, v)
}
