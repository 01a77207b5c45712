package apiserver

import (
	"fmt"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/registry"
)

// Resources the API itself reads.
var (
	podsResource    = mustLookup("", "v1", "pods")
	secretsResource = mustLookup("", "v1", "secrets")
)

func mustLookup(group, version, name string) *api.Resource {
	r, ok := api.Lookup(group, version, name)
	if !ok {
		panic(fmt.Sprintf("api has no %s/%s %s", group, version, name))
	}
	return r
}

func decodeStored(res *api.Resource, kv *datastore.KeyValue) (api.Object, error) {
	return registry.DecodeStored(res, kv)
}
