package api

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// The methods below are what a custom resource's schema does to its
// objects; each is a no-op on a nil CustomKind (a kind without a CRD) or
// without a schema.

// pruneAndDefault drops the fields the schema does not specify, then sets
// its defaults, as upstream does when it decodes a custom resource.
func (ck *CustomKind) pruneAndDefault(obj Object) {
	if ck == nil || ck.schema == nil {
		return
	}
	u := obj.(*unstructured.Unstructured)
	ck.schema.prune(u.Object, nil, true, nil)
	ck.schema.applyDefaults(u.Object)
}

// unknownFields prunes u and returns one `unknown field "spec.x"` message
// per field removed, for fieldValidation=Strict (refused) and Warn.
func (ck *CustomKind) unknownFields(u *unstructured.Unstructured) []string {
	if ck == nil || ck.schema == nil {
		return nil
	}
	paths := ck.schema.prune(u.Object, nil, true, nil)
	msgs := make([]string, len(paths))
	for i, p := range paths {
		msgs[i] = fmt.Sprintf("unknown field %q", p)
	}
	return msgs
}

// validate checks the object against the schema; metadata is validated
// as every object's is.
func (ck *CustomKind) validate(obj Object) field.ErrorList {
	if ck == nil || ck.schema == nil {
		return nil
	}
	errs := ck.schema.validate(obj.(*unstructured.Unstructured).Object, nil)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field }) // maps have no order
	return errs
}

// addFields adds the selectable fields' values (scalars printed; a
// missing field is "").
func (ck *CustomKind) addFields(obj Object, set fields.Set) {
	if ck == nil {
		return
	}
	u, _ := obj.(*unstructured.Unstructured)
	for name, p := range ck.selectable {
		set[name] = ""
		if u == nil {
			continue
		}
		if got := p.Find(u.Object); len(got) == 1 {
			set[name] = scalarString(got[0])
		}
	}
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// decodeStoredCustom decodes a stored custom object as version r: with
// conversion None every served version has the stored object's fields, so
// only apiVersion changes.
func decodeStoredCustom(r *Resource, data []byte, rev int64) (Object, error) {
	decodes.Add(1)
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		return nil, jsonError(r, err)
	}
	if m == nil {
		return nil, fmt.Errorf("decode %s: the stored value is not an object", r.Kind)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(r.APIVersion())
	u.SetKind(r.Kind)
	u.SetResourceVersion(strconv.FormatInt(rev, 10))
	return u, nil
}

// ScaleOf is the Scale the "scale" subresource of obj (of kind r) shows:
// a custom resource's from its CRD's specReplicasPath,
// statusReplicasPath and labelSelectorPath, a built-in kind's from
// ScaleFor.
func ScaleOf(r *Resource, obj Object) (*autoscalingv1.Scale, error) {
	sc := r.custom.scalePaths()
	if sc == nil {
		return ScaleFor(obj)
	}
	u := obj.(*unstructured.Unstructured)
	s := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp()},
	}
	s.Spec.Replicas = int32(pathInt(u, sc.SpecReplicasPath))
	s.Status.Replicas = int32(pathInt(u, sc.StatusReplicasPath))
	if sc.LabelSelectorPath != nil {
		sel, _, _ := unstructured.NestedString(u.Object, pathFields(*sc.LabelSelectorPath)...)
		s.Status.Selector = sel
	}
	return s, nil
}

// SetScaleOf writes a Scale's spec.replicas into obj (of kind r).
func SetScaleOf(r *Resource, obj Object, s *autoscalingv1.Scale) error {
	sc := r.custom.scalePaths()
	if sc == nil {
		return SetScale(obj, s)
	}
	if s.Spec.Replicas < 0 {
		return fmt.Errorf("spec.replicas: Invalid value: %d: must be greater than or equal to 0", s.Spec.Replicas)
	}
	u := obj.(*unstructured.Unstructured)
	return unstructured.SetNestedField(u.Object, int64(s.Spec.Replicas), pathFields(sc.SpecReplicasPath)...)
}

func (ck *CustomKind) scalePaths() *apiextv1.CustomResourceSubresourceScale {
	if ck == nil {
		return nil
	}
	return ck.Scale
}

func pathFields(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

func pathInt(u *unstructured.Unstructured, p string) int64 {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, pathFields(p)...)
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}
