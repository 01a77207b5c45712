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
