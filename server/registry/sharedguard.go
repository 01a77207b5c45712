package registry

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/bramble-edge/bramble/api"
)

// Mutate hands admission the shared cache's own object as the current one
// (mutateCached, loadShared): desired copies it, and nothing may change
// it, as every other reader of the cache holds the same object. Test
// builds with the race detector (every CI run of go test -race, in every
// package that updates through the registry) check that: guardShared
// remembers a copy and its check panics when the object no longer equals
// it. The product is not built with -race and pays nothing.

// guardShared returns the check of obj being left alone; a no-op without
// the race detector.
func guardShared(obj api.Object) func() {
	if !checkShared {
		return func() {}
	}
	before := obj.DeepCopyObject()
	return func() {
		if !equality.Semantic.DeepEqual(before, obj) {
			panic(fmt.Sprintf("registry: an update changed the current %T %s/%s it was given, which is the shared cache's: copy it first",
				obj, obj.GetNamespace(), obj.GetName()))
		}
	}
}
