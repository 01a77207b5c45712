package registry

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/api/openapi"
)

// Server-side apply merges an object by its schema: a list of type "map"
// (a pod's containers, by name) merges item by item, so two managers can
// own different items; an "atomic" one is replaced whole. The schemas are
// the OpenAPI ones the documents serve (api/openapi), turned into
// structured-merge-diff types by managedfields.NewTypeConverter.
//
// One converter serves every built-in kind, built on the first apply. A
// kind added at run time with its own schema gets one of its own; without
// one it is merged by a schema deduced from the object, every list atomic.

// deducedTypes merges kinds without a schema.
var deducedTypes = managedfields.NewDeducedTypeConverter()

// typeConverters builds the converters lazily and keeps them.
type typeConverters struct {
	once    sync.Once
	builtin managedfields.TypeConverter
	known   map[schema.GroupVersionKind]bool // kinds builtin knows
	err     error
}

// typeConverterFor is the converter server-side apply merges res with.
func (r *Registry) typeConverterFor(res *api.Resource) (managedfields.TypeConverter, error) {
	if res.Unstructured() {
		if len(res.Schema) == 0 {
			return deducedTypes, nil
		}
		return newTypeConverter([]*api.Resource{res})
	}
	tc := &r.converters
	tc.once.Do(func() { tc.builtin, tc.known, tc.err = builtinTypeConverter() })
	if tc.err != nil {
		return nil, tc.err
	}
	if !tc.known[res.GroupVersionKind()] {
		return nil, fmt.Errorf("server-side apply: no OpenAPI schema for %s %s (run go generate ./api/openapi)", res.APIVersion(), res.Kind)
	}
	return tc.builtin, nil
}

// builtinTypeConverter converts every built-in kind that has a generated
// schema; one without is left out (and refused by typeConverterFor), so
// that it does not take server-side apply of every other kind down.
func builtinTypeConverter() (managedfields.TypeConverter, map[schema.GroupVersionKind]bool, error) {
	defs, err := openapi.Load()
	if err != nil {
		return nil, nil, err
	}
	known := map[schema.GroupVersionKind]bool{}
	var kinds []*api.Resource
	for _, res := range api.All() {
		if _, err := defs.Schemas([]*api.Resource{res}); err == nil {
			kinds = append(kinds, res)
			known[res.GroupVersionKind()] = true
		}
	}
	tc, err := typeConverterFrom(defs, kinds)
	return tc, known, err
}

func newTypeConverter(kinds []*api.Resource) (managedfields.TypeConverter, error) {
	defs, err := openapi.Load()
	if err != nil {
		return nil, err
	}
	return typeConverterFrom(defs, kinds)
}

// typeConverterFrom builds a converter from the schemas kinds need.
func typeConverterFrom(defs *openapi.Definitions, kinds []*api.Resource) (managedfields.TypeConverter, error) {
	raw, err := defs.Schemas(kinds)
	if err != nil {
		return nil, err
	}
	specs := make(map[string]*spec.Schema, len(raw))
	for name, def := range raw {
		s := &spec.Schema{}
		if err := json.Unmarshal(def, s); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		specs[name] = s
	}
	tc, err := managedfields.NewTypeConverter(specs, false)
	if err != nil {
		return nil, fmt.Errorf("server-side apply types: %w", err)
	}
	// Building took ~6 MB of short-lived memory for every built-in kind,
	// once; give it back to the OS soon rather than at the next GC cycles
	// of an idle server, without making the apply wait for it.
	go debug.FreeOSMemory()
	return tc, nil
}
