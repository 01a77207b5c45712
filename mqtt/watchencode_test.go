package mqtt

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestEncodeStoredMatchesEncode: what EncodeStored writes decodes to the
// very event Encode's payload decodes to; its envelope checks refuse what
// Encode refuses.
func TestEncodeStoredMatchesEncode(t *testing.T) {
	obj := json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"7"},"data":{"k":"<v&>"}}`)
	w := &WatchEvent{Type: Modified, ObjectRef: ObjectRef{Resource: "configmaps", Namespace: "ns", Name: "a"}, Rev: 7, Object: obj}
	fast, err := w.EncodeStored()
	if err != nil {
		t.Fatal(err)
	}
	slow, err := w.Encode()
	if err != nil {
		t.Fatal(err)
	}
	a, err := DecodeWatchEvent(fast)
	if err != nil {
		t.Fatalf("decode EncodeStored's %s: %v", fast, err)
	}
	b, err := DecodeWatchEvent(slow)
	if err != nil {
		t.Fatal(err)
	}
	var ao, bo any
	if json.Unmarshal(a.Object, &ao) != nil || json.Unmarshal(b.Object, &bo) != nil || !reflect.DeepEqual(ao, bo) {
		t.Errorf("objects differ: %s vs %s", a.Object, b.Object)
	}
	a.Object, b.Object = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Errorf("envelopes differ: %+v vs %+v", a, b)
	}
	if !bytes.Contains(fast, obj) {
		t.Errorf("EncodeStored %s does not carry the object as it was", fast)
	}
	for _, bad := range []*WatchEvent{
		{Type: "BOGUS", ObjectRef: w.ObjectRef, Rev: 7, Object: obj},
		{Type: Added, ObjectRef: ObjectRef{Name: "a"}, Rev: 7, Object: obj},
		{Type: Added, ObjectRef: w.ObjectRef, Rev: 0, Object: obj},
		{Type: Added, ObjectRef: w.ObjectRef, Rev: 7},
	} {
		if _, err := bad.EncodeStored(); err == nil {
			t.Errorf("EncodeStored(%+v): got no error, want one", bad)
		}
	}
}

// TestEncodeStoredEventMatchesEncode: an Event put together from
// EncodeStoredChange encodings decodes to the Event Encode's payload
// decodes to; bad revisions and changes are refused.
func TestEncodeStoredEventMatchesEncode(t *testing.T) {
	obj := json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"9"},"data":{"k":"v"}}`)
	changes := []Change{
		{Type: Modified, ObjectRef: ObjectRef{Resource: "configmaps", Namespace: "ns", Name: "a"}, Object: obj},
		{Type: Deleted, ObjectRef: ObjectRef{Resource: "pods", Namespace: "ns", Name: "p"}},
	}
	var parts [][]byte
	for i := range changes {
		b, err := EncodeStoredChange(&changes[i])
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, b)
	}
	fast, err := EncodeStoredEvent(9, 4, parts)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := (&Event{Type: EventChanges, Rev: 9, Prev: 4, Changes: changes}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	a, err := DecodeEvent(fast)
	if err != nil {
		t.Fatalf("decode %s: %v", fast, err)
	}
	b, err := DecodeEvent(slow)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("EncodeStoredEvent gives %+v, Encode %+v", a, b)
	}
	if _, err := EncodeStoredEvent(4, 4, parts); err == nil {
		t.Error("prev == rev: got no error, want one")
	}
	if _, err := EncodeStoredChange(&Change{Type: Added, ObjectRef: changes[0].ObjectRef}); err == nil {
		t.Error("ADDED without object: got no error, want one")
	}
}
