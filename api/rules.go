package api

import (
	"reflect"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Rules are one built-in kind's own admission rules, beside those every
// kind shares (metadata, generation, status kept apart from spec). A kind
// added in a file of its own registers its row and its rules together
// with register, from an init function; every field may be nil.
type Rules struct {
	// Default sets the kind's defaults in place; it must be idempotent.
	Default func(obj Object)
	// PrepareCreate runs after the shared preparation of a new object
	// (status cleared for kinds with a status subresource).
	PrepareCreate func(obj Object)
	// PrepareUpdate runs after the shared preparation of an update of the
	// main resource, before validation (a Service keeps its allocated
	// ClusterIP when a PUT leaves it out).
	PrepareUpdate func(obj, old Object)
	// Validate checks the object on create and update.
	Validate func(obj Object) field.ErrorList
	// ValidateUpdate checks what may not change between old and obj.
	ValidateUpdate func(obj, old Object) field.ErrorList
	// ValidateStatus checks a write to the status subresource.
	ValidateStatus func(obj Object) field.ErrorList
	// Name is the rule for metadata.name (DNS subdomain when nil).
	Name apivalidation.ValidateNameFunc
	// Fields adds the kind's own field-selector fields to set.
	Fields func(obj Object, set fields.Set)
}

// rulesByType holds the registered rules, by the kind's Go type.
var rulesByType = map[reflect.Type]*Rules{}

// register adds a served resource and its kind's rules. Several versions
// of one kind register the same rules once per Go type.
func register(r *Resource, k Rules) {
	resources = append(resources, r)
	addLater(func(s *runtime.Scheme) { addToScheme(s, r) })
	rulesByType[reflect.TypeOf(r.newObject())] = &k
}

// rulesOf returns obj's registered rules, or nil.
func rulesOf(obj Object) *Rules {
	if len(rulesByType) == 0 {
		return nil
	}
	return rulesByType[reflect.TypeOf(obj)]
}

// addToScheme makes s know a registered kind, its list and the meta types
// of its group version.
func addToScheme(s *runtime.Scheme, r *Resource) {
	gv := r.GroupVersion()
	if !s.IsVersionRegistered(gv) {
		metav1.AddToGroupVersion(s, gv)
	}
	s.AddKnownTypes(gv, r.newObject(), r.newList())
}
