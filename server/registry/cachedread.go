package registry

import (
	"strconv"

	"github.com/bramble-edge/bramble/api"
)

// cachedCopy is a copy of the shared cache's object when the cache holds
// the very version the datastore just returned (its resourceVersion is
// the value's revision), nil otherwise. The cache decoded that value with
// api.DecodeStored as decodeStored would, so the copy is what a decode
// would give, for a deep copy's cost rather than a JSON decode's: every
// update, status write and binding reads the object first (it was a
// decode per write in BenchmarkDeployment1000's profile).
//
// Revisions only grow while the process runs (a restore happens before
// the server starts, and the cache starts with it), so a key and a
// revision name one stored value.
func (r *Registry) cachedCopy(res *api.Resource, ns, name string, rev int64) api.Object {
	if r.cache == nil {
		return nil
	}
	inf, ok := r.cache.Serves(res)
	if !ok {
		return nil
	}
	obj, ok := inf.Get(ns, name)
	if !ok || obj.GetResourceVersion() != strconv.FormatInt(rev, 10) {
		return nil
	}
	return obj.DeepCopyObject().(api.Object)
}
