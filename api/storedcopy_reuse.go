package api

import "reflect"

// A write usually repeats most of the revision before it (see
// DecodeStoredReusing): a pod's status write leaves its metadata and spec
// alone. The copy the registry hands the cache need not copy those
// sections: the cache holds them already, decoded (or copied) from equal
// bytes, and shares them with the new revision as the decode would.

// StoredCopyReusing is StoredCopy of obj, encoded as data, for a cache
// that holds prev (its fingerprints prevSecs) as the revision before: the
// sections whose bytes equal prev's are prev's, shared, and only the
// others are copied and fixed. It also returns data's fingerprints (nil
// when r's objects keep none), for AdoptStored. prev and prevSecs must
// come from one decode or copy of a stored value of r; nil means none.
func StoredCopyReusing(r *Resource, obj Object, data []byte, prev Object, prevSecs *Sections) (Object, *Sections, bool) {
	p := copyPlan(r, obj)
	if p == nil {
		return nil, nil, false
	}
	t, fields := sectionFields(r)
	secs := Fingerprints(r, data)
	var reuse [len(sectionNames)]bool
	if secs != nil {
		reuse = reusable(secs, prevSecs, prev, t)
	}
	var fixes any
	byField := false
	if reuse != [len(sectionNames)]bool{} {
		fixes, byField = structFixes.Load(t.Elem())
	}
	if reuse == [len(sectionNames)]bool{} || (!byField && p.fix != nil) {
		out, ok := fixedCopy(r, p, obj.DeepCopyObject().(Object))
		return out, secs, ok
	}
	// A shallow copy of obj without the reused sections, deep copied:
	// only the other sections are copied, then fixed (the fields of obj's
	// struct one by one, as its plan fixes them, but the reused ones).
	without := reflect.New(t.Elem())
	without.Elem().Set(reflect.ValueOf(obj).Elem())
	skip := make([]int, 0, len(sectionNames))
	for i, ok := range reuse {
		if ok {
			without.Elem().Field(fields[i]).SetZero()
			skip = append(skip, fields[i])
		}
	}
	out := without.Interface().(Object).DeepCopyObject().(Object)
	dst, src := reflect.ValueOf(out).Elem(), reflect.ValueOf(prev).Elem()
	if byField && !fixFields(dst, fixes.([]fieldFix), skip) {
		return nil, nil, false
	}
	for i, ok := range reuse {
		if ok { // counted by AdoptStored, which shares them again
			dst.Field(fields[i]).Set(src.Field(fields[i]))
		}
	}
	out.GetObjectKind().SetGroupVersionKind(r.GroupVersionKind())
	return out, secs, true
}

// Fingerprints are the fingerprints of data, a stored value of r, for
// AdoptStored; nil when r's objects keep none or data's sections cannot
// be found.
func Fingerprints(r *Resource, data []byte) *Sections {
	if _, fields := sectionFields(r); fields == nil {
		return nil
	}
	spans, ok := topLevelSpans(data)
	if !ok {
		return nil
	}
	return fingerprint(data, spans)
}

// Copyable says whether StoredCopy copies obj, of r's kind, at all (it
// may still decline one of its values).
func Copyable(r *Resource, obj Object) bool { return copyPlan(r, obj) != nil }

// FixStored brings *ptr, a value of an API type the caller owns, to what
// a JSON round trip gives, as StoredCopy brings its copy; false: it
// cannot.
func FixStored(ptr any) bool {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	p := normPlanOf(v.Type().Elem())
	return p.ok && (p.fix == nil || p.fix(v.Elem()))
}
