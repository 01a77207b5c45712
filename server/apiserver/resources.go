package apiserver

import (
	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/registry"
)

// Resources the API itself reads.
var (
	podsResource    = api.MustLookup("", "v1", "pods")
	secretsResource = api.MustLookup("", "v1", "secrets")
)

func decodeStored(res *api.Resource, kv *datastore.KeyValue) (api.Object, error) {
	return registry.DecodeStored(res, kv)
}
