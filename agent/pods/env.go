package pods

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// resolveEnv turns a container's envFrom and env into plain variables:
// the service variables svcEnv first, then envFrom, then env, a later name
// replacing an earlier one (as the kubelet: the user's env wins). A missing
// object or key that is not optional is an error wrapping errConfig.
func resolveEnv(ctx context.Context, lookup Lookup, pod *corev1.Pod, c *corev1.Container, nodeIP string, svcEnv []corev1.EnvVar) ([]runtime.EnvVar, error) {
	var out []runtime.EnvVar
	index := map[string]int{}
	set := func(name, value string) {
		if i, ok := index[name]; ok {
			out[i].Value = value
			return
		}
		index[name] = len(out)
		out = append(out, runtime.EnvVar{Name: name, Value: value})
	}
	for _, e := range svcEnv {
		set(e.Name, e.Value)
	}
	for _, src := range c.EnvFrom {
		data, err := envFromSource(ctx, lookup, pod.Namespace, src)
		if err != nil {
			return nil, fmt.Errorf("%w: container %s envFrom: %w", errConfig, c.Name, err)
		}
		for _, k := range sortedKeys(data) {
			set(src.Prefix+k, string(data[k]))
		}
	}
	for _, e := range c.Env {
		v, skip, err := envValue(ctx, lookup, pod, c.Name, e, nodeIP)
		if err != nil {
			return nil, fmt.Errorf("%w: container %s env %s: %w", errConfig, c.Name, e.Name, err)
		}
		if !skip {
			set(e.Name, v)
		}
	}
	return out, nil
}

func envFromSource(ctx context.Context, lookup Lookup, ns string, src corev1.EnvFromSource) (map[string][]byte, error) {
	kind, name, optional := KindConfigMap, "", false
	switch {
	case src.ConfigMapRef != nil:
		name, optional = src.ConfigMapRef.Name, deref(src.ConfigMapRef.Optional)
	case src.SecretRef != nil:
		kind, name, optional = KindSecret, src.SecretRef.Name, deref(src.SecretRef.Optional)
	default:
		return nil, nil
	}
	data, err := lookup(ctx, kind, ns, name)
	if errors.Is(err, ErrNotFound) && optional {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: %w", kind, ns, name, err)
	}
	return data, nil
}

// envValue resolves one env entry; skip is true for an optional
// reference that is missing (the variable is then not set).
func envValue(ctx context.Context, lookup Lookup, pod *corev1.Pod, container string, e corev1.EnvVar, nodeIP string) (string, bool, error) {
	f := e.ValueFrom
	switch {
	case f == nil:
		return e.Value, false, nil
	case f.ConfigMapKeyRef != nil:
		r := f.ConfigMapKeyRef
		return keyRef(ctx, lookup, KindConfigMap, pod.Namespace, r.Name, r.Key, deref(r.Optional))
	case f.SecretKeyRef != nil:
		r := f.SecretKeyRef
		return keyRef(ctx, lookup, KindSecret, pod.Namespace, r.Name, r.Key, deref(r.Optional))
	case f.FieldRef != nil:
		v, err := fieldRef(pod, f.FieldRef.FieldPath, nodeIP)
		return v, false, err
	case f.ResourceFieldRef != nil:
		if f.ResourceFieldRef.ContainerName != "" {
			container = f.ResourceFieldRef.ContainerName
		}
		v, err := resourceField(pod, container, f.ResourceFieldRef)
		return v, false, err
	}
	return "", false, fmt.Errorf("valueFrom: only configMapKeyRef, secretKeyRef, fieldRef and resourceFieldRef are supported")
}

func keyRef(ctx context.Context, lookup Lookup, kind, ns, name, key string, optional bool) (string, bool, error) {
	data, err := lookup(ctx, kind, ns, name)
	if errors.Is(err, ErrNotFound) && optional {
		return "", true, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("%s %s/%s: %w", kind, ns, name, err)
	}
	v, ok := data[key]
	if !ok {
		if optional {
			return "", true, nil
		}
		return "", false, fmt.Errorf("%s %s/%s has no key %q", kind, ns, name, key)
	}
	return string(v), false, nil
}

// fieldRef resolves the downward API fields a host-network pod has.
func fieldRef(pod *corev1.Pod, path, nodeIP string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.podIP", "status.hostIP", "status.podIPs", "status.hostIPs":
		return nodeIP, nil
	}
	if v, ok := metaField(pod, path); ok {
		return v, nil
	}
	return "", fmt.Errorf("fieldRef %q is not supported", path)
}

func deref(b *bool) bool { return b != nil && *b }
