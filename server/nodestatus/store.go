package nodestatus

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Reads go straight to the datastore, decoded the way the API server
// decodes stored objects (except where a possibly stale cached pod is
// safe: cachedWrite below); writes go through the Writer (admission).

var (
	nodesResource = mustResource("", "nodes")
	podsResource  = mustResource("", "pods")
)

func mustResource(group, name string) *api.Resource {
	r, ok := api.Lookup(group, "v1", name)
	if !ok {
		panic(fmt.Sprintf("api registry has no %s/v1 %s", group, name))
	}
	return r
}

// getNode reads one Node; datastore.ErrNotFound (wrapped) when absent.
func getNode(ctx context.Context, store datastore.Store, name string) (*corev1.Node, error) {
	obj, err := getObject(ctx, store, nodesResource, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Node), nil
}

// getPod reads one Pod; datastore.ErrNotFound (wrapped) when absent.
func getPod(ctx context.Context, store datastore.Store, namespace, name string) (*corev1.Pod, error) {
	obj, err := getObject(ctx, store, podsResource, namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

func getObject(ctx context.Context, store datastore.Store, res *api.Resource, ns, name string) (api.Object, error) {
	kv, err := store.Get(ctx, res.Key(ns, name))
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", res.Singular, name, err)
	}
	return decodeStored(res, kv)
}

func decodeStored(res *api.Resource, kv *datastore.KeyValue) (api.Object, error) {
	obj, err := api.DecodeStored(res, kv.Value, kv.ModRevision)
	if err != nil {
		return nil, fmt.Errorf("stored object %s: %w", kv.Key, err)
	}
	return obj, nil
}

// PodReader is a read of pods that may be behind the datastore: the
// process's shared informer cache (*informer.Informer of pods).
type PodReader interface {
	Get(namespace, name string) (api.Object, bool)
}

// A pod status write needs the stored pod (to check the report is about
// it, to merge, and as the base of the write). Reading it from the shared
// cache instead of the datastore saves a read and a decode per write, but
// the cache may be behind, so it is trusted only for the one outcome a
// stale read cannot get wrong: "write". cachedWrite answers only when the
// cached pod is the reported one (same UID), bound to the reporting node,
// and its status differs from what the merged report would make it. Then:
//   - the write carries the cached resourceVersion, so if the cache was
//     behind, the registry refuses it (409 Conflict) and syncPod tries
//     again reading the datastore: a stale base never overwrites anything;
//   - a write that was not needed after all (the stored status already
//     is the merged one) costs one write, never a lost one.
// Every outcome that skips the write (the pod gone, another pod of that
// name, bound elsewhere or not yet, a finished pod, a status already as
// reported) could be a stale read's mistake, so each is decided from the
// datastore by the caller instead (reportedPod), as before.

// cachedWrite is the cached pod and the write of its merged status
// (statusPod) when the cache's copy shows a write is due; nil when the
// datastore must decide. The pod is the cache's: read only.
func (m *Monitor) cachedWrite(key podKey, want *podState) (*corev1.Pod, *corev1.Pod) {
	if m.cfg.Pods == nil {
		return nil, nil
	}
	obj, ok := m.cfg.Pods.Get(key.namespace, key.name)
	if !ok {
		return nil, nil
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok || string(pod.UID) != want.uid || pod.Spec.NodeName != want.node || pod.ResourceVersion == "" {
		return nil, nil
	}
	upd := statusPod(pod, want.status)
	if upd == nil || podStatusEqual(&upd.Status, &pod.Status) {
		return nil, nil
	}
	return pod, upd
}
