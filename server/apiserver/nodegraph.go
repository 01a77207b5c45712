package apiserver

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/auth"
)

// nodeGraph answers the node authorizer from the shared cache, when there
// is one and it has synced, and from the datastore otherwise. A refusal is
// only given once the cache has caught up with the datastore, so a pod
// bound a moment ago is never refused its ConfigMaps.
type nodeGraph struct {
	store datastore.Store
	cache *informer.Cache // may be nil
}

var _ auth.NodeGraph = (*nodeGraph)(nil)

// graphWait bounds how long a refusal waits for the cache to catch up.
const graphWait = time.Second

// NewNodeGraph returns the NodeGraph the node authorizer asks which pods
// are bound where and what they reference; cache may be nil.
func NewNodeGraph(store datastore.Store, cache *informer.Cache) auth.NodeGraph {
	return &nodeGraph{store: store, cache: cache}
}

// PodNode returns the node pod namespace/name is bound to ("" when
// unbound). A missing pod is an error wrapping datastore.ErrNotFound.
func (g *nodeGraph) PodNode(ctx context.Context, namespace, name string) (string, error) {
	if pods, ok := g.pods(); ok {
		if obj, ok := pods.Get(namespace, name); ok {
			return obj.(*corev1.Pod).Spec.NodeName, nil
		}
	}
	pod, err := getPod(ctx, g.store, namespace, name)
	if err != nil {
		return "", err
	}
	return pod.Spec.NodeName, nil
}

// NodeReferences reports whether any pod bound to node uses the ConfigMap,
// Secret or claim namespace/name, by the rule of api.PodReferences.
func (g *nodeGraph) NodeReferences(ctx context.Context, node, resource, namespace, name string) (bool, error) {
	if resource != api.ResourceConfigMaps && resource != api.ResourceSecrets && resource != api.ResourcePersistentVolumeClaims {
		return false, nil
	}
	if pods, ok := g.pods(); ok {
		if cachedReference(pods, node, resource, namespace, name) {
			return true, nil
		}
		if g.caughtUp(ctx) {
			return cachedReference(pods, node, resource, namespace, name), nil
		}
	}
	return g.storeReferences(ctx, node, resource, namespace, name)
}

func (g *nodeGraph) pods() (*informer.Informer, bool) {
	if g.cache == nil {
		return nil, false
	}
	return g.cache.Serves(podsResource)
}

// caughtUp waits (briefly) for the cache to hold every change up to the
// datastore's current revision.
func (g *nodeGraph) caughtUp(ctx context.Context) bool {
	cur, err := g.store.CurrentRevision(ctx)
	if err != nil {
		return false
	}
	wctx, cancel := context.WithTimeout(ctx, graphWait)
	defer cancel()
	return g.cache.WaitForRevision(wctx, cur) == nil
}

// cachedReference looks for a pod on node in namespace that references
// the object, among the cached pods bound to node.
func cachedReference(pods *informer.Informer, node, resource, namespace, name string) bool {
	for _, obj := range pods.ByIndex(informer.IndexNode, node) {
		pod := obj.(*corev1.Pod)
		if pod.Namespace == namespace && api.PodReferencesObject(&pod.Spec, resource, name) {
			return true
		}
	}
	return false
}

// storeReferences is NodeReferences read from the datastore.
func (g *nodeGraph) storeReferences(ctx context.Context, node, resource, namespace, name string) (bool, error) {
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
