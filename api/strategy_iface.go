package api

import "k8s.io/apimachinery/pkg/util/validation/field"

// Strategy is one kind's admission rules. Every method may be called on
// any object of the kind; the registry calls Default, then Prepare*, then
// Validate*.
type Strategy interface {
	Default(obj Object)
	PrepareForCreate(r *Resource, obj Object)
	PrepareForUpdate(r *Resource, obj, old Object)
	PrepareForStatusUpdate(r *Resource, obj, old Object)
	ValidateCreate(r *Resource, obj Object) field.ErrorList
	ValidateUpdate(r *Resource, obj, old Object) field.ErrorList
	ValidateStatusUpdate(r *Resource, obj, old Object) field.ErrorList
}

// typedStrategy is the strategy of the built-in kinds.
type typedStrategy struct{}

var _ Strategy = typedStrategy{}

func (typedStrategy) Default(obj Object)                            { Default(obj) }
func (typedStrategy) PrepareForCreate(r *Resource, obj Object)      { PrepareForCreate(r, obj) }
func (typedStrategy) PrepareForUpdate(r *Resource, obj, old Object) { PrepareForUpdate(r, obj, old) }
func (typedStrategy) PrepareForStatusUpdate(r *Resource, obj, old Object) {
	PrepareForStatusUpdate(r, obj, old)
}
func (typedStrategy) ValidateCreate(r *Resource, obj Object) field.ErrorList {
	return ValidateCreate(r, obj)
}
func (typedStrategy) ValidateUpdate(r *Resource, obj, old Object) field.ErrorList {
	return ValidateUpdate(r, obj, old)
}
func (typedStrategy) ValidateStatusUpdate(r *Resource, obj, old Object) field.ErrorList {
	return ValidateStatusUpdate(r, obj, old)
}
