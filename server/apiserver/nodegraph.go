package apiserver

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
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
// or Secret namespace/name, by the rule of api.PodReferences.
func (g *nodeGraph) NodeReferences(ctx context.Context, node, resource, namespace, name string) (bool, error) {
	if resource != api.ResourceConfigMaps && resource != api.ResourceSecrets {
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
		if pod.Spec.NodeName == node && api.PodReferencesObject(&pod.Spec, resource, name) {
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
