package mqtt

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleEvents() *EventReport {
	first := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	return &EventReport{Node: "pi-0", Dropped: 3, Events: []NodeEvent{
		{Object: EventObject{Kind: EventKindPod, Namespace: "default", Name: "web", UID: "u-1", FieldPath: "spec.containers{web}"},
			Type: "Warning", Reason: "BackOff", Message: "Back-off restarting failed container web", Count: 4,
			FirstTimestamp: first, LastTimestamp: first.Add(90 * time.Second)},
		{Object: EventObject{Kind: EventKindNode, Name: "pi-0", UID: "pi-0"},
			Type: "Warning", Reason: "Rebooted", Message: "Node pi-0 has been rebooted, boot id: b", Count: 1,
			FirstTimestamp: first, LastTimestamp: first},
	}}
}

func TestEventsRoundTrip(t *testing.T) {
	in := sampleEvents()
	data, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeEvents(data)
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip: got %+v, want %+v", out, in)
	}
	if only := (&EventReport{Node: "pi-0", Dropped: 1}); true {
		if _, err := only.Encode(); err != nil {
			t.Errorf("a report of drops only: %v", err)
		}
	}
}

func TestDecodeEventsErrors(t *testing.T) {
	ev := func(m map[string]any) map[string]any { return m["events"].([]any)[0].(map[string]any) }
	obj := func(m map[string]any) map[string]any { return ev(m)["object"].(map[string]any) }
	cases := []struct {
		name string
		f    func(m map[string]any)
		want string
	}{
		{"empty", func(m map[string]any) { delete(m, "events"); delete(m, "dropped") }, "events: empty, and nothing dropped"},
		{"node", func(m map[string]any) { m["node"] = "Pi" }, `node: "Pi"`},
		{"kind", func(m map[string]any) { obj(m)["kind"] = "Secret" }, `events[0].object.kind: got "Secret", want Pod or Node`},
		{"namespace", func(m map[string]any) { obj(m)["namespace"] = "" }, `events[0].object.namespace: ""`},
		{"pod uid", func(m map[string]any) { delete(obj(m), "uid") }, "events[0].object.uid: got 0 bytes"},
		{"name", func(m map[string]any) { obj(m)["name"] = "a/b" }, `events[0].object.name: "a/b"`},
		{"field path", func(m map[string]any) { obj(m)["fieldPath"] = strings.Repeat("x", 300) }, "events[0].object.fieldPath: 300 bytes"},
		{"type", func(m map[string]any) { ev(m)["type"] = "Error" }, `events[0].type: got "Error", want Normal or Warning`},
		{"reason", func(m map[string]any) { ev(m)["reason"] = "back off" }, `events[0].reason: got "back off"`},
		{"message", func(m map[string]any) { ev(m)["message"] = strings.Repeat("m", 1025) }, "events[0].message: 1025 bytes"},
		{"count", func(m map[string]any) { ev(m)["count"] = 0 }, "events[0].count: got 0, want >= 1"},
		{"first", func(m map[string]any) { ev(m)["firstTimestamp"] = "1970-01-01T00:00:00Z" }, "events[0].firstTimestamp: got 1970"},
		{"last", func(m map[string]any) { ev(m)["lastTimestamp"] = "2026-01-01T00:00:00Z" }, "events[0].lastTimestamp: got 2026-01-01"},
		{"time", func(m map[string]any) { ev(m)["lastTimestamp"] = "yesterday" }, "malformed JSON"},
		{"unknown", func(m map[string]any) { ev(m)["severity"] = 1 }, `unknown field "events[0].severity"`},
		{"node namespace", func(m map[string]any) {
			o := m["events"].([]any)[1].(map[string]any)["object"].(map[string]any)
			o["namespace"] = "default"
		}, `events[1].object.namespace: got "default", want none for a Node`},
		{"negative drops", func(m map[string]any) { m["dropped"] = -1 }, "malformed JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payload := mutate(t, sampleEvents(), tc.f)
			_, err := DecodeEvents([]byte(payload))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("decode %s: got error %v, want one containing %q", payload, err, tc.want)
			}
		})
	}
	big := `{"node":"n","dropped":1,"x":"` + strings.Repeat("a", MaxEventsBytes) + `"}`
	if _, err := DecodeEvents([]byte(big)); err == nil || !strings.Contains(err.Error(), "limit 524288") {
		t.Errorf("oversized report: got %v, want the size limit", err)
	}
}
