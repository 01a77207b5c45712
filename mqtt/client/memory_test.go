package client

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

func TestMemoryAppliesAndResyncs(t *testing.T) {
	ctx := context.Background()
	ref := func(name string) mqtt.ObjectRef {
		return mqtt.ObjectRef{Resource: "pods", Namespace: "default", Name: name}
	}
	obj := func(name, rv string) json.RawMessage {
		return json.RawMessage(`{"metadata":{"name":"` + name + `","namespace":"default","resourceVersion":"` + rv + `"}}`)
	}
	m := NewMemory()
	err := m.Apply(ctx, mqtt.Event{Type: mqtt.EventChanges, Rev: 5, Prev: 1, Changes: []mqtt.Change{
		{Type: mqtt.Added, ObjectRef: ref("a"), Object: obj("a", "4")},
		{Type: mqtt.Added, ObjectRef: ref("b"), Object: obj("b", "5")},
		{Type: mqtt.Deleted, ObjectRef: ref("never-held")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(ctx, mqtt.Event{Type: mqtt.EventChanges, Rev: 7, Prev: 5, Changes: []mqtt.Change{
		{Type: mqtt.Modified, ObjectRef: ref("a"), Object: obj("a", "7")},
		{Type: mqtt.Deleted, ObjectRef: ref("b")},
	}}); err != nil {
		t.Fatal(err)
	}
	if got, want := m.Versions(), map[mqtt.ObjectRef]int64{ref("a"): 7}; !maps.Equal(got, want) || m.Rev() != 7 {
		t.Errorf("after two events: got %v at %d, want %v at 7", got, m.Rev(), want)
	}
	if err := m.Resync(ctx, State{Rev: 9, Objects: []mqtt.Change{{Type: mqtt.Added, ObjectRef: ref("c"), Object: obj("c", "8")}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := m.Versions(), map[mqtt.ObjectRef]int64{ref("c"): 8}; !maps.Equal(got, want) || m.Rev() != 9 {
		t.Errorf("after resync: got %v at %d, want %v at 9", got, m.Rev(), want)
	}
	err = m.Apply(ctx, mqtt.Event{Type: mqtt.EventChanges, Rev: 10, Prev: 9, Changes: []mqtt.Change{
		{Type: mqtt.Added, ObjectRef: ref("d"), Object: json.RawMessage(`{"metadata":{"name":"d"}}`)}}})
	if err == nil || !strings.Contains(err.Error(), "no resourceVersion") {
		t.Errorf("object without resourceVersion: got %v, want an error saying so", err)
	}
}
