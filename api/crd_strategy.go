package api

import (
	"fmt"
	"strconv"

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
	return ck.schema.validate(obj.(*unstructured.Unstructured).Object, nil)
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
