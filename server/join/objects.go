package join

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// secrets is the Secret resource: where Secrets are kept in the datastore
// and how they are encoded, the same as the API server's.
var secrets = api.MustLookup("", "v1", "secrets")

// nodes is the Node resource: a node's certificate record notes whether
// its Node exists.
var nodes = api.MustLookup("", "v1", "nodes")

// getSecret reads one Secret; datastore.ErrNotFound (wrapped) when absent.
func getSecret(ctx context.Context, store datastore.Store, namespace, name string) (*corev1.Secret, error) {
	kv, err := store.Get(ctx, secrets.Key(namespace, name))
	if err != nil {
		return nil, fmt.Errorf("read secret %s/%s: %w", namespace, name, err)
	}
	return decodeSecret(kv)
}

func decodeSecret(kv *datastore.KeyValue) (*corev1.Secret, error) {
	obj, _, err := api.DecodeJSON(secrets, kv.Value, false)
	if err != nil {
		return nil, fmt.Errorf("stored secret %s: %w", kv.Key, err)
	}
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return nil, fmt.Errorf("stored secret %s: decoded as %T", kv.Key, obj)
	}
	return s, nil
}
