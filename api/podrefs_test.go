package api

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func local(name string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: name} }

func withVolume(src corev1.VolumeSource) corev1.PodSpec {
	return corev1.PodSpec{Volumes: []corev1.Volume{{Name: "v", VolumeSource: src}}}
}

func projected(sources ...corev1.VolumeProjection) corev1.PodSpec {
	return withVolume(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: sources}})
}

func cmEnv(name string) []corev1.EnvVar {
	return []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: local(name), Key: "k"}}}}
}

func secretEnv(name string) []corev1.EnvVar {
	return []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: local(name), Key: "k"}}}}
}

func cmFrom(name string) []corev1.EnvFromSource {
	return []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: local(name)}}}
}

func secretFrom(name string) []corev1.EnvFromSource {
	return []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: local(name)}}}
}

func initC(c corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{InitContainers: []corev1.Container{c}}
}
func appC(c corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{c}}
}
func ephC(c corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{EphemeralContainers: []corev1.EphemeralContainer{
		{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: c.Name, Env: c.Env, EnvFrom: c.EnvFrom}}}}
}

// podRefCases covers every place a pod spec can name a ConfigMap or Secret,
// and places that look alike but name neither.
func podRefCases() []struct {
	name string
	spec corev1.PodSpec
	want []PodRef
} {
	cm := func(n string) PodRef { return PodRef{Resource: ResourceConfigMaps, Name: n} }
	sec := func(n string) PodRef { return PodRef{Resource: ResourceSecrets, Name: n} }
	fieldEnv := []corev1.EnvVar{{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	return []struct {
		name string
		spec corev1.PodSpec
		want []PodRef
	}{
		{"nothing", corev1.PodSpec{}, nil},
		{"imagePullSecrets", corev1.PodSpec{ImagePullSecrets: []corev1.LocalObjectReference{local("reg")}}, []PodRef{sec("reg")}},
		{"configMap volume", withVolume(corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: local("x")}}), []PodRef{cm("x")}},
		{"secret volume", withVolume(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x"}}), []PodRef{sec("x")}},
		{"projected configMap", projected(corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: local("x")}}), []PodRef{cm("x")}},
		{"projected secret", projected(corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: local("x")}}), []PodRef{sec("x")}},
		{"projected token and downwardAPI", projected(
			corev1.VolumeProjection{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}},
			corev1.VolumeProjection{DownwardAPI: &corev1.DownwardAPIProjection{}}), nil},
		{"emptyDir and hostPath", corev1.PodSpec{Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}}}}, nil},
		{"init env configMap", initC(corev1.Container{Env: cmEnv("x")}), []PodRef{cm("x")}},
		{"init env secret", initC(corev1.Container{Env: secretEnv("x")}), []PodRef{sec("x")}},
		{"init envFrom configMap", initC(corev1.Container{EnvFrom: cmFrom("x")}), []PodRef{cm("x")}},
		{"init envFrom secret", initC(corev1.Container{EnvFrom: secretFrom("x")}), []PodRef{sec("x")}},
		{"container env configMap", appC(corev1.Container{Env: cmEnv("x")}), []PodRef{cm("x")}},
		{"container env secret", appC(corev1.Container{Env: secretEnv("x")}), []PodRef{sec("x")}},
		{"container envFrom configMap", appC(corev1.Container{EnvFrom: cmFrom("x")}), []PodRef{cm("x")}},
		{"container envFrom secret", appC(corev1.Container{EnvFrom: secretFrom("x")}), []PodRef{sec("x")}},
		{"container env fieldRef and value", appC(corev1.Container{Env: append(fieldEnv, corev1.EnvVar{Name: "V", Value: "secrets"})}), nil},
		{"ephemeral env configMap", ephC(corev1.Container{Env: cmEnv("x")}), []PodRef{cm("x")}},
		{"ephemeral env secret", ephC(corev1.Container{Env: secretEnv("x")}), []PodRef{sec("x")}},
		{"ephemeral envFrom configMap", ephC(corev1.Container{EnvFrom: cmFrom("x")}), []PodRef{cm("x")}},
		{"ephemeral envFrom secret", ephC(corev1.Container{EnvFrom: secretFrom("x")}), []PodRef{sec("x")}},
		{"empty names skipped", corev1.PodSpec{ImagePullSecrets: []corev1.LocalObjectReference{local("")},
			Containers: []corev1.Container{{EnvFrom: cmFrom("")}}}, nil},
		{"repeats once, sorted", corev1.PodSpec{
			ImagePullSecrets: []corev1.LocalObjectReference{local("b"), local("a")},
			Containers:       []corev1.Container{{Env: secretEnv("b"), EnvFrom: cmFrom("b")}}},
			[]PodRef{cm("b"), sec("a"), sec("b")}},
	}
}

func TestPodReferences(t *testing.T) {
	for _, tc := range podRefCases() {
		t.Run(tc.name, func(t *testing.T) {
			if got := PodReferences(&tc.spec); !slices.Equal(got, tc.want) {
				t.Errorf("PodReferences: got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPodReferencesObject(t *testing.T) {
	for _, tc := range podRefCases() {
		t.Run(tc.name, func(t *testing.T) {
			for _, res := range []string{ResourceConfigMaps, ResourceSecrets, "pods"} {
				for _, name := range []string{"x", "a", "b", "reg", ""} {
					want := slices.Contains(tc.want, PodRef{Resource: res, Name: name})
					if got := PodReferencesObject(&tc.spec, res, name); got != want {
						t.Errorf("PodReferencesObject(%s, %q): got %v, want %v", res, name, got, want)
					}
				}
			}
		})
	}
}

func TestPodRefsStopsEarly(t *testing.T) {
	spec := corev1.PodSpec{ImagePullSecrets: []corev1.LocalObjectReference{local("a"), local("b")},
		Containers: []corev1.Container{{EnvFrom: cmFrom("c")}}}
	var seen []PodRef
	for r := range PodRefs(&spec) {
		seen = append(seen, r)
		break
	}
	if want := []PodRef{{Resource: ResourceSecrets, Name: "a"}}; !slices.Equal(seen, want) {
		t.Errorf("got %v, want %v", seen, want)
	}
}
