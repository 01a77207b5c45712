package nodestatus

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Reads go straight to the datastore, decoded the way the API server
// decodes stored objects; writes go through the Writer (admission).

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
