package registry

import (
	"fmt"
	"reflect"
	"time"

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

// locationType is a time's zone: shared by design, never changed.
var locationType = reflect.TypeFor[*time.Location]()

// An update's answer is the caller's own, as a Get's is: callers change
// it and write it again. Written over the shared cache's object, it must
// share nothing with that object that could be changed in place (a map,
// a slice's array, a pointed-to value). guardAnswer checks that in race
// builds, as guardShared checks the cache's object is left alone.

// guardAnswer panics, in race builds, when out shares memory with cur, the
// shared cache's object it was written over.
func guardAnswer(out, cur any) {
	if !checkShared || out == nil || cur == nil {
		return
	}
	refs := map[uintptr]bool{}
	walkRefs(reflect.ValueOf(cur), "", func(p uintptr, _ string) bool { refs[p] = true; return false })
	walkRefs(reflect.ValueOf(out), "", func(p uintptr, path string) bool {
		if refs[p] {
			panic(fmt.Sprintf("registry: an update's answer %T shares %s with the shared cache's object: copy it", out, path))
		}
		return false
	})
}

// walkRefs calls visit with the address of every map, slice array and
// pointed-to value reachable from v, and its path; visit returning true
// stops the walk below that reference.
func walkRefs(v reflect.Value, path string, visit func(p uintptr, path string) bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if v.Type() == locationType || v.IsNil() || (v.Kind() == reflect.Slice && v.Cap() == 0) || (v.Kind() == reflect.Pointer && v.Type().Elem().Size() == 0) {
			return
		}
		if visit(v.Pointer(), path) {
			return
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkRefs(v.Elem(), path, visit)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkRefs(v.Index(i), fmt.Sprintf("%s[%d]", path, i), visit)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			walkRefs(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), visit)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walkRefs(v.Field(i), path+"."+v.Type().Field(i).Name, visit)
		}
	}
}

// A pod bindCached binds is given to the shared cache uncopied
// (giveBound): it must equal the copy the cache would otherwise take.
// guardGiven checks that in race builds; guardShared, around the
// binding, checks that the cache's pod it shares most of is left alone.

// guardGiven panics, in race builds, when obj, given to the shared cache
// without a copy, differs from the copy api.StoredCopy makes of it.
func guardGiven(res *api.Resource, obj api.Object) {
	if !checkShared {
		return
	}
	if want, ok := api.StoredCopy(res, obj); !ok || !reflect.DeepEqual(want, obj) {
		panic(fmt.Sprintf("registry: the %T %s/%s given to the shared cache uncopied is not as a decode makes it: fix it or offer a copy",
			obj, obj.GetNamespace(), obj.GetName()))
	}
}
