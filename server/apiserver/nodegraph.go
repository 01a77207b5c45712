package apiserver

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/auth"
)

// nodeGraph answers the node authorizer from the datastore.
type nodeGraph struct {
	store datastore.Store
}

var _ auth.NodeGraph = (*nodeGraph)(nil)

// NewNodeGraph returns the NodeGraph the node authorizer asks which pods
// are bound where and what they reference.
func NewNodeGraph(store datastore.Store) auth.NodeGraph { return &nodeGraph{store: store} }

// PodNode returns the node pod namespace/name is bound to ("" when
// unbound). A missing pod is an error wrapping datastore.ErrNotFound.
func (g *nodeGraph) PodNode(ctx context.Context, namespace, name string) (string, error) {
	pod, err := getPod(ctx, g.store, namespace, name)
	if err != nil {
		return "", err
	}
	return pod.Spec.NodeName, nil
}

// NodeReferences reports whether any pod bound to node uses the ConfigMap
// or Secret namespace/name (volumes, env, envFrom, image pull secrets).
func (g *nodeGraph) NodeReferences(ctx context.Context, node, resource, namespace, name string) (bool, error) {
	if resource != "configmaps" && resource != "secrets" {
		return false, nil
	}
	page, err := g.store.List(ctx, podsResource.Prefix(namespace), datastore.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("list pods in %s: %w", namespace, err)
	}
	for _, kv := range page.Items {
		obj, err := decodeStored(podsResource, kv)
		if err != nil {
			return false, err
		}
		pod := obj.(*corev1.Pod)
		if pod.Spec.NodeName == node && podReferences(pod, resource, name) {
			return true, nil
		}
	}
	return false, nil
}

func getPod(ctx context.Context, store datastore.Store, namespace, name string) (*corev1.Pod, error) {
	kv, err := store.Get(ctx, podsResource.Key(namespace, name))
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s: %w", namespace, name, err)
	}
	obj, err := decodeStored(podsResource, kv)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

// NewSecretGetter returns a function reading one Secret, for the bearer
// token authenticator. A missing Secret is an error wrapping
// datastore.ErrNotFound.
func NewSecretGetter(store datastore.Store) func(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	return func(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
		kv, err := store.Get(ctx, secretsResource.Key(namespace, name))
		if err != nil {
			return nil, fmt.Errorf("secret %s/%s: %w", namespace, name, err)
		}
		obj, err := decodeStored(secretsResource, kv)
		if err != nil {
			return nil, err
		}
		return obj.(*corev1.Secret), nil
	}
}

// podReferences reports whether pod uses the configmap or secret name.
func podReferences(pod *corev1.Pod, resource, name string) bool {
	secrets := resource == "secrets"
	for _, ps := range pod.Spec.ImagePullSecrets {
		if secrets && ps.Name == name {
			return true
		}
	}
	for _, v := range pod.Spec.Volumes {
		if volumeReferences(v.VolumeSource, secrets, name) {
			return true
		}
	}
	for _, c := range allContainers(pod) {
		if containerReferences(c, secrets, name) {
			return true
		}
	}
	return false
}

func volumeReferences(v corev1.VolumeSource, secrets bool, name string) bool {
	if secrets && v.Secret != nil && v.Secret.SecretName == name {
		return true
	}
	if !secrets && v.ConfigMap != nil && v.ConfigMap.Name == name {
		return true
	}
	if v.Projected == nil {
		return false
	}
	for _, s := range v.Projected.Sources {
		if (secrets && s.Secret != nil && s.Secret.Name == name) || (!secrets && s.ConfigMap != nil && s.ConfigMap.Name == name) {
			return true
		}
	}
	return false
}

func containerReferences(c corev1.Container, secrets bool, name string) bool {
	for _, e := range c.EnvFrom {
		if (secrets && e.SecretRef != nil && e.SecretRef.Name == name) || (!secrets && e.ConfigMapRef != nil && e.ConfigMapRef.Name == name) {
			return true
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			continue
		}
		if (secrets && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == name) ||
			(!secrets && e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name == name) {
			return true
		}
	}
	return false
}

func allContainers(pod *corev1.Pod) []corev1.Container {
	out := append([]corev1.Container{}, pod.Spec.InitContainers...)
	out = append(out, pod.Spec.Containers...)
	for _, ec := range pod.Spec.EphemeralContainers {
		out = append(out, corev1.Container(ec.EphemeralContainerCommon))
	}
	return out
}
