package api

import (
	"strconv"

	kjson "sigs.k8s.io/json"
)

// Stored values were written by the registry after admission: they were
// decoded strictly once, when they came in, and encoded by us. Reading them
// back needs no duplicate- or unknown-field checks (the strict decoder
// tracks every field of every object to find them); it stays
// case-sensitive, as upstream's storage decoder is. Request bodies still go
// through DecodeJSON.

// DecodeStored decodes an object as the datastore keeps it: JSON without
// a resourceVersion, since the revision it was written at (rev) is its
// resourceVersion. Stored objects were admitted once, so unknown fields
// are ignored rather than refused.
func DecodeStored(r *Resource, data []byte, rev int64) (Object, error) {
	if r.custom != nil {
		return decodeStoredCustom(r, data, rev)
	}
	stored := r
	if r.Storage != nil {
		stored = r.Storage
	}
	obj, err := decodeStoredJSON(stored, data)
	if err != nil {
		return nil, err
	}
	if obj, err = r.fromStorage(obj); err != nil {
		return nil, err
	}
	obj.SetResourceVersion(strconv.FormatInt(rev, 10))
	return obj, nil
}

// decodeStoredJSON decodes a stored value of r's kind: case-sensitive,
// unknown fields ignored, duplicates taking the last value (what the
// strict decoder keeps too), kind and apiVersion checked and filled in.
func decodeStoredJSON(r *Resource, data []byte) (Object, error) {
	decodes.Add(1)
	if r.unstructured {
		obj, _, err := decodeUnstructured(r, data, false)
		return obj, err
	}
	obj := r.New()
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, obj); err != nil {
		return nil, jsonError(r, err)
	}
	if err := checkKind(r, obj); err != nil {
		return nil, err
	}
	return obj, nil
}
