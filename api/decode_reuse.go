package api

import (
	"bytes"
	"crypto/sha256"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
)

// A later revision of an object usually repeats most of the one before: a
// pod's binding leaves its metadata alone, a status write its metadata and
// spec. DecodeStoredReusing decodes only the top-level sections (metadata,
// spec, status) whose bytes changed and takes the others from the previous
// revision's decoded object, sharing them: both objects are read-only (the
// shared cache's contract), so sharing is safe where copying would cost
// what the decode saved.

// sectionNames are the top-level fields a revision may share with the one
// before, in the order of Sections' sums.
var sectionNames = [...]string{"metadata", "spec", "status"}

// Sections fingerprints the sections of one stored value: the SHA-256 of
// each one's JSON bytes. Equal sums mean equal bytes, hence an equal decode.
// 96 bytes per cached object.
type Sections struct {
	sum     [len(sectionNames)][sha256.Size]byte
	present [len(sectionNames)]bool
}

// reusedSections counts the sections taken from a previous revision
// instead of being decoded, for benchmarks.
var reusedSections atomic.Int64

// ReusedSections is how many sections DecodeStoredReusing has not decoded.
func ReusedSections() int64 { return reusedSections.Load() }

// DecodeStoredReusing is DecodeStored that may share unchanged sections
// with prev, the object decoded from the previous revision, whose
// fingerprints are prevSecs. It also returns data's fingerprints, for the
// next revision (nil when the kind or the value does not allow reuse: the
// next revision is then decoded whole). prev and prevSecs must come from
// one successful decode of a stored value of r; nil means none.
func DecodeStoredReusing(r *Resource, data []byte, rev int64, prev Object, prevSecs *Sections) (Object, *Sections, error) {
	t, fields := sectionFields(r)
	if fields == nil {
		obj, err := DecodeStored(r, data, rev)
		return obj, nil, err
	}
	spans, ok := topLevelSpans(data)
	if !ok {
		obj, err := DecodeStored(r, data, rev)
		return obj, nil, err
	}
	secs := fingerprint(data, spans)
	reuse := reusable(secs, prevSecs, prev, t)
	obj, err := decodeStoredJSON(r, withNulls(data, spans, reuse))
	if err != nil {
		return nil, nil, err
	}
	shareSections(obj, prev, fields, reuse)
	obj.SetResourceVersion(strconv.FormatInt(rev, 10))
	return obj, secs, nil
}

// reusable says which sections of the new value equal prev's.
func reusable(secs, prevSecs *Sections, prev Object, t reflect.Type) (reuse [len(sectionNames)]bool) {
	if prevSecs == nil || prev == nil || reflect.TypeOf(prev) != t {
		return reuse
	}
	for i := range sectionNames {
		reuse[i] = secs.present[i] && prevSecs.present[i] && secs.sum[i] == prevSecs.sum[i]
	}
	return reuse
}

// fingerprint sums the sections spans locates.
func fingerprint(data []byte, spans [len(sectionNames)][2]int) *Sections {
	secs := &Sections{}
	for i, sp := range spans {
		if sp[1] > sp[0] {
			secs.present[i] = true
			secs.sum[i] = sha256.Sum256(data[sp[0]:sp[1]])
		}
	}
	return secs
}

// withNulls is data with the value of each reused section replaced by
// null, which leaves the field as the zero value for shareSections to fill.
func withNulls(data []byte, spans [len(sectionNames)][2]int, reuse [len(sectionNames)]bool) []byte {
	if reuse == [len(sectionNames)]bool{} {
		return data
	}
	// spans are in no particular order: cut them in the order they occur.
	var cuts [][2]int
	for i, sp := range spans {
		if reuse[i] {
			cuts = insertSorted(cuts, sp)
		}
	}
	out := bytes.NewBuffer(make([]byte, 0, len(data)))
	at := 0
	for _, c := range cuts {
		out.Write(data[at:c[0]])
		out.WriteString("null")
		at = c[1]
	}
	out.Write(data[at:])
	return out.Bytes()
}

func insertSorted(cuts [][2]int, sp [2]int) [][2]int {
	i := 0
	for i < len(cuts) && cuts[i][0] < sp[0] {
		i++
	}
	cuts = append(cuts, [2]int{})
	copy(cuts[i+1:], cuts[i:])
	cuts[i] = sp
	return cuts
}

// shareSections copies the reused sections' fields from prev into obj (a
// shallow copy: the two objects then share what those fields point to).
func shareSections(obj, prev Object, fields []int, reuse [len(sectionNames)]bool) {
	if reuse == [len(sectionNames)]bool{} {
		return
	}
	dst, src := reflect.ValueOf(obj).Elem(), reflect.ValueOf(prev).Elem()
	for i, ok := range reuse {
		if ok {
			dst.Field(fields[i]).Set(src.Field(fields[i]))
			reusedSections.Add(1)
		}
	}
}

// sectionPlan is, for one resource, the Go type of its objects and the
// index of the struct field each section decodes into (nil: no sharing).
type sectionPlan struct {
	t      reflect.Type
	fields []int
}

// sectionPlans caches each resource's plan: *Resource -> sectionPlan.
var sectionPlans sync.Map

// sectionFields is r's objects' type (a pointer) and the field index of
// each section, or nil fields when r's objects cannot share sections:
// custom and unstructured kinds, kinds stored as another version (converted
// after decoding), and types lacking a metadata, spec or status field.
func sectionFields(r *Resource) (reflect.Type, []int) {
	if r.custom != nil || r.unstructured || r.Storage != nil || r.conv != nil {
		return nil, nil
	}
	if p, ok := sectionPlans.Load(r); ok {
		return p.(sectionPlan).t, p.(sectionPlan).fields
	}
	t := reflect.TypeOf(r.New())
	fields := make([]int, len(sectionNames))
	for i, name := range sectionNames {
		if fields[i] = jsonField(t.Elem(), name); fields[i] < 0 {
			fields = nil
			break
		}
	}
	sectionPlans.Store(r, sectionPlan{t: t, fields: fields})
	return t, fields
}

// jsonField is the index of t's field whose JSON name is name, or -1.
func jsonField(t reflect.Type, name string) int {
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("json")
		if n, _, _ := bytes.Cut([]byte(tag), []byte(",")); string(n) == name {
			return i
		}
	}
	return -1
}

// AdoptStored makes obj, a copy made by StoredCopyReusing of the object
// encoded into a stored value whose fingerprints are secs, the object of
// revision rev in place of DecodeStoredReusing's decode: the sections
// equal to prev's are shared with prev as the decode would share them.
// secs are returned for the next revision.
func AdoptStored(r *Resource, obj Object, secs *Sections, rev int64, prev Object, prevSecs *Sections) (Object, *Sections) {
	if t, fields := sectionFields(r); fields != nil && secs != nil {
		shareSections(obj, prev, fields, reusable(secs, prevSecs, prev, t))
	}
	obj.SetResourceVersion(strconv.FormatInt(rev, 10))
	return obj, secs
}
