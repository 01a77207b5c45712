package mqtt

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Plural resource names the node topics carry.
const (
	ResourcePods       = "pods"
	ResourceConfigMaps = "configmaps"
	ResourceSecrets    = "secrets"
)

func (r ObjectRef) check() error {
	if !validName(r.Resource) {
		return fmt.Errorf("resource: got %q, want a lowercase plural such as %q", r.Resource, ResourcePods)
	}
	if r.Namespace != "" && !validName(r.Namespace) {
		return fmt.Errorf("namespace: got %q, want empty or a DNS name", r.Namespace)
	}
	if !validName(r.Name) {
		return fmt.Errorf("name: got %q, want a DNS subdomain name (1-253 of a-z, 0-9, '-', '.')", r.Name)
	}
	return nil
}

// validName accepts DNS subdomain names: 1-253 characters of a-z, 0-9,
// '-' and '.', starting and ending with a letter or digit. Such names are
// also safe as MQTT topic levels.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' && c != '.' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// PodReferences lists the ConfigMaps and Secrets a pod uses (volumes,
// projected volumes, env valueFrom, envFrom, imagePullSecrets, in every
// init, regular and ephemeral container), each once, sorted. They live in
// the pod's namespace.
func PodReferences(pod *corev1.Pod) []ObjectRef {
	var out []ObjectRef
	add := func(resource, name string) {
		if name != "" {
			out = append(out, ObjectRef{Resource: resource, Namespace: pod.Namespace, Name: name})
		}
	}
	for _, s := range pod.Spec.ImagePullSecrets {
		add(ResourceSecrets, s.Name)
	}
	for _, v := range pod.Spec.Volumes {
		volumeReferences(v.VolumeSource, add)
	}
	for _, c := range pod.Spec.InitContainers {
		containerReferences(c.Env, c.EnvFrom, add)
	}
	for _, c := range pod.Spec.Containers {
		containerReferences(c.Env, c.EnvFrom, add)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		containerReferences(c.Env, c.EnvFrom, add)
	}
	slices.SortFunc(out, compareRefs)
	return slices.Compact(out)
}

func compareRefs(a, b ObjectRef) int {
	return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

func volumeReferences(v corev1.VolumeSource, add func(resource, name string)) {
	if v.ConfigMap != nil {
		add(ResourceConfigMaps, v.ConfigMap.Name)
	}
	if v.Secret != nil {
		add(ResourceSecrets, v.Secret.SecretName)
	}
	if v.Projected == nil {
		return
	}
	for _, s := range v.Projected.Sources {
		if s.ConfigMap != nil {
			add(ResourceConfigMaps, s.ConfigMap.Name)
		}
		if s.Secret != nil {
			add(ResourceSecrets, s.Secret.Name)
		}
	}
}

func containerReferences(env []corev1.EnvVar, from []corev1.EnvFromSource, add func(resource, name string)) {
	for _, e := range from {
		if e.ConfigMapRef != nil {
			add(ResourceConfigMaps, e.ConfigMapRef.Name)
		}
		if e.SecretRef != nil {
			add(ResourceSecrets, e.SecretRef.Name)
		}
	}
	for _, e := range env {
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			add(ResourceConfigMaps, r.Name)
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil {
			add(ResourceSecrets, r.Name)
		}
	}
}
