package api

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// NewUnstructured describes a kind known only at run time (a
// CustomResourceDefinition's): its objects are *unstructured.Unstructured
// and its lists *unstructured.UnstructuredList. r names the kind (Group,
// Version, Name, Singular, Kind, Namespaced, ShortNames, Categories,
// Subresources); Generation is always counted, as for custom resources.
func NewUnstructured(r Resource) *Resource {
	res := r
	res.unstructured, res.Generation = true, true
	gvk := res.GroupVersionKind()
	res.newObject = func() Object {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u
	}
	res.newList = func() runtime.Object {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		return l
	}
	return &res
}

// decodeUnstructured decodes a JSON body of an unstructured kind. Without
// a schema every field is kept; duplicate fields are what strict decoding
// refuses (and warns about otherwise).
func decodeUnstructured(r *Resource, data []byte, strict bool) (Object, []string, error) {
	var m map[string]any
	strictErrs, err := kjson.UnmarshalStrict(data, &m, kjson.DisallowDuplicateFields)
	if err != nil {
		return nil, nil, jsonError(r, err)
	}
	if m == nil {
		return nil, nil, fmt.Errorf("decode %s: the body must be a JSON object", r.Kind)
	}
	if md, ok := m["metadata"]; ok && md != nil {
		if _, isObj := md.(map[string]any); !isObj {
			return nil, nil, fmt.Errorf("decode %s: metadata: must be an object", r.Kind)
		}
	}
	u := &unstructured.Unstructured{Object: m}
	if err := checkUnstructuredMeta(r, u); err != nil {
		return nil, nil, err
	}
	if err := checkKind(r, u); err != nil {
		return nil, nil, err
	}
	msgs := make([]string, len(strictErrs))
	for i, e := range strictErrs {
		msgs[i] = e.Error()
	}
	msgs = append(msgs, r.custom.unknownFields(u)...)
	if strict && len(msgs) > 0 {
		return nil, nil, fmt.Errorf("strict decoding error: %s", strings.Join(msgs, ", "))
	}
	return u, msgs, nil
}

// checkUnstructuredMeta makes sure metadata converts to ObjectMeta, so
// the accessors never drop a malformed field silently.
func checkUnstructuredMeta(r *Resource, u *unstructured.Unstructured) error {
	md, ok := u.Object["metadata"].(map[string]any)
	if !ok {
		return nil
	}
	var om metav1.ObjectMeta
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(md, &om); err != nil {
		return fmt.Errorf("decode %s: metadata: %v", r.Kind, err)
	}
	return nil
}

// ObjectMetaOf returns an object's metadata, also of an unstructured one.
func ObjectMetaOf(obj Object) metav1.ObjectMeta {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		var om metav1.ObjectMeta
		if md, ok := u.Object["metadata"].(map[string]any); ok {
			_ = runtime.DefaultUnstructuredConverter.FromUnstructured(md, &om)
		}
		return om
	}
	if om, ok := fieldOf(obj, "ObjectMeta").Interface().(metav1.ObjectMeta); ok {
		return om
	}
	return metav1.ObjectMeta{}
}

// unstructuredStrategy is the generic strategy of kinds known only at run
// time: metadata validated as for every kind, status split off when the
// kind has a status subresource, generation counting every change outside
// metadata (and status, when that is a subresource).
type unstructuredStrategy struct{ c *CustomKind }

var _ Strategy = unstructuredStrategy{}

func (s unstructuredStrategy) Default(obj Object) { s.c.pruneAndDefault(obj) }

func (unstructuredStrategy) PrepareForCreate(r *Resource, obj Object) {
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetGeneration(1)
	if r.HasSubresource("status") {
		delete(obj.(*unstructured.Unstructured).Object, "status")
	}
}

func (unstructuredStrategy) PrepareForUpdate(r *Resource, obj, old Object) {
	keepServerMeta(obj, old)
	u, o := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	if r.HasSubresource("status") {
		copyTopField(u, o, "status")
	}
	obj.SetGeneration(old.GetGeneration())
	if contentChangedUnstructured(u, o, r.HasSubresource("status")) {
		obj.SetGeneration(old.GetGeneration() + 1)
	}
}

func (unstructuredStrategy) PrepareForStatusUpdate(_ *Resource, obj, old Object) {
	u, o := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	rv := u.GetResourceVersion()
	status, hasStatus := u.Object["status"]
	u.Object = runtime.DeepCopyJSON(o.Object)
	delete(u.Object, "status")
	if hasStatus {
		u.Object["status"] = status
	}
	u.SetResourceVersion(rv)
}

func (s unstructuredStrategy) ValidateCreate(r *Resource, obj Object) field.ErrorList {
	return append(validateMeta(r, obj), s.c.validate(obj)...)
}

func (s unstructuredStrategy) ValidateUpdate(r *Resource, obj, old Object) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
	return append(append(errs, validateMeta(r, obj)...), s.c.validate(obj)...)
}

func (s unstructuredStrategy) ValidateStatusUpdate(_ *Resource, obj, old Object) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
	return append(errs, s.c.validate(obj)...)
}

// copyTopField sets dst's top-level field to a copy of src's, or removes it.
func copyTopField(dst, src *unstructured.Unstructured, name string) {
	v, ok := src.Object[name]
	if !ok {
		delete(dst.Object, name)
		return
	}
	dst.Object[name] = runtime.DeepCopyJSONValue(v)
}

// contentChangedUnstructured compares everything but metadata, type fields
// and (with a status subresource) status.
func contentChangedUnstructured(u, old *unstructured.Unstructured, statusSub bool) bool {
	skip := map[string]bool{"metadata": true, "apiVersion": true, "kind": true, "status": statusSub}
	for k, v := range u.Object {
		if !skip[k] && !equality.Semantic.DeepEqual(v, old.Object[k]) {
			return true
		}
	}
	for k := range old.Object {
		if _, ok := u.Object[k]; !ok && !skip[k] {
			return true
		}
	}
	return false
}
