package api

import (
	"cmp"
	"iter"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Resources a pod can reference by name, as their plural names.
const (
	ResourceConfigMaps = "configmaps"
	ResourceSecrets    = "secrets"
	// ResourcePersistentVolumeClaims: a pod's claims (its agent mounts
	// the volumes they are bound to).
	ResourcePersistentVolumeClaims = "persistentvolumeclaims"
)

// PodRef names a ConfigMap, Secret or PersistentVolumeClaim a pod
// references. It lives in the pod's namespace.
type PodRef struct {
	Resource string // ResourceConfigMaps, ResourceSecrets or ResourcePersistentVolumeClaims
	Name     string
}

// PodRefs yields every ConfigMap, Secret and PersistentVolumeClaim the pod
// spec references, in spec order, repeats included: image pull secrets,
// configMap, secret, persistentVolumeClaim and projected volumes, and env
// valueFrom and envFrom of every init, regular and ephemeral container.
// Empty names are skipped.
//
// It is the one statement of the rule "a node may read what its pods
// reference": the node authorizer and the publisher both follow it.
func PodRefs(spec *corev1.PodSpec) iter.Seq[PodRef] {
	return func(yield func(PodRef) bool) {
		w := refWalker{yield: yield}
		w.walk(spec)
	}
}

// PodReferences lists the ConfigMaps and Secrets the pod spec references,
// each once, sorted by resource then name.
func PodReferences(spec *corev1.PodSpec) []PodRef {
	out := slices.Collect(PodRefs(spec))
	slices.SortFunc(out, func(a, b PodRef) int {
		return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Name, b.Name))
	})
	return slices.Compact(out)
}

// PodReferencesObject reports whether the pod spec references the
// ConfigMap or Secret name (resource is ResourceConfigMaps or
// ResourceSecrets; anything else is never referenced).
func PodReferencesObject(spec *corev1.PodSpec, resource, name string) bool {
	want := PodRef{Resource: resource, Name: name}
	for r := range PodRefs(spec) {
		if r == want {
			return true
		}
	}
	return false
}

// refWalker visits a pod spec's references until yield returns false.
type refWalker struct {
	yield   func(PodRef) bool
	stopped bool
}

func (w *refWalker) add(resource, name string) {
	if name != "" && !w.stopped {
		w.stopped = !w.yield(PodRef{Resource: resource, Name: name})
	}
}

func (w *refWalker) walk(spec *corev1.PodSpec) {
	for _, s := range spec.ImagePullSecrets {
		w.add(ResourceSecrets, s.Name)
	}
	for i := range spec.Volumes {
		w.volume(&spec.Volumes[i].VolumeSource)
	}
	for i := range spec.InitContainers {
		w.container(spec.InitContainers[i].Env, spec.InitContainers[i].EnvFrom)
	}
	for i := range spec.Containers {
		w.container(spec.Containers[i].Env, spec.Containers[i].EnvFrom)
	}
	for i := range spec.EphemeralContainers {
		w.container(spec.EphemeralContainers[i].Env, spec.EphemeralContainers[i].EnvFrom)
	}
}

func (w *refWalker) volume(v *corev1.VolumeSource) {
	if v.ConfigMap != nil {
		w.add(ResourceConfigMaps, v.ConfigMap.Name)
	}
	if v.Secret != nil {
		w.add(ResourceSecrets, v.Secret.SecretName)
	}
	if v.PersistentVolumeClaim != nil {
		w.add(ResourcePersistentVolumeClaims, v.PersistentVolumeClaim.ClaimName)
	}
	if v.Projected == nil {
		return
	}
	for _, s := range v.Projected.Sources {
		if s.ConfigMap != nil {
			w.add(ResourceConfigMaps, s.ConfigMap.Name)
		}
		if s.Secret != nil {
			w.add(ResourceSecrets, s.Secret.Name)
		}
	}
}

func (w *refWalker) container(env []corev1.EnvVar, from []corev1.EnvFromSource) {
	for _, e := range from {
		if e.ConfigMapRef != nil {
			w.add(ResourceConfigMaps, e.ConfigMapRef.Name)
		}
		if e.SecretRef != nil {
			w.add(ResourceSecrets, e.SecretRef.Name)
		}
	}
	for _, e := range env {
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			w.add(ResourceConfigMaps, r.Name)
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil {
			w.add(ResourceSecrets, r.Name)
		}
	}
}
