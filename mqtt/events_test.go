package mqtt

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const podJSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","namespace":"default","resourceVersion":"7"}}`

func TestEventRoundTrip(t *testing.T) {
	in := &Event{Type: EventChanges, Rev: 9, Prev: 4, Changes: []Change{
		{Type: Added, ObjectRef: ObjectRef{Resource: "pods", Namespace: "default", Name: "web"}, Object: json.RawMessage(podJSON)},
		{Type: Deleted, ObjectRef: ObjectRef{Resource: "configmaps", Namespace: "default", Name: "old"}},
	}}
	data, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeEvent(data)
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip: got %+v, want %+v", out, in)
	}
}

func TestDecodeEventErrors(t *testing.T) {
	change := func(s string) string { return `{"type":"CHANGES","rev":5,"prev":2,"changes":[` + s + `]}` }
	cases := []struct{ name, payload, want string }{
		{"not an object", `[1]`, "payload is not a JSON object"},
		{"empty", ``, "payload is not a JSON object"},
		{"malformed", `{"type":`, "malformed JSON"},
		{"unknown field", `{"type":"RELIST","rev":5,"prev":2,"extra":1}`, `unknown field "extra"`},
		{"case differs", `{"Type":"RELIST","rev":5,"prev":2}`, `unknown field "Type"`},
		{"duplicate", `{"type":"RELIST","rev":5,"rev":6,"prev":2}`, `duplicate field "rev"`},
		{"rev zero", `{"type":"RELIST","rev":0,"prev":0}`, "rev: got 0, want > 0"},
		{"prev not before rev", `{"type":"RELIST","rev":5,"prev":5}`, "prev: got 5, want 0 <= prev < rev (5)"},
		{"prev negative", `{"type":"RELIST","rev":5,"prev":-1}`, "prev: got -1"},
		{"bad type", `{"type":"SYNC","rev":5,"prev":2}`, `type: got "SYNC", want CHANGES or RELIST`},
		{"relist with changes", `{"type":"RELIST","rev":5,"prev":2,"changes":[{}]}`, "changes: got 1 for RELIST, want none"},
		{"rev as string", `{"type":"RELIST","rev":"5","prev":2}`, "malformed JSON"},
		{"change type", change(`{"type":"UPDATED","resource":"pods","name":"a"}`), `changes[0].type: got "UPDATED"`},
		{"change resource", change(`{"type":"DELETED","resource":"Pods","name":"a"}`), `changes[0].resource: got "Pods"`},
		{"change name slash", change(`{"type":"DELETED","resource":"pods","name":"a/b"}`), `changes[0].name: got "a/b"`},
		{"change name wildcard", change(`{"type":"DELETED","resource":"pods","name":"#"}`), `changes[0].name: got "#"`},
		{"change namespace", change(`{"type":"DELETED","resource":"pods","namespace":"-x","name":"a"}`), `changes[0].namespace: got "-x"`},
		{"missing object", change(`{"type":"ADDED","resource":"pods","namespace":"default","name":"web"}`), "changes[0].object: missing, want the object for ADDED"},
		{"object not object", change(`{"type":"ADDED","resource":"pods","namespace":"default","name":"web","object":[1]}`), "changes[0].object: cannot unmarshal array"},
		{"object no metadata", change(`{"type":"ADDED","resource":"pods","namespace":"default","name":"web","object":{}}`), "changes[0].object.metadata: missing"},
		{"object other name", change(`{"type":"ADDED","resource":"pods","namespace":"default","name":"db","object":` + podJSON + `}`), `changes[0].object.metadata.name: got "web", want "db"`},
		{"object other namespace", change(`{"type":"ADDED","resource":"pods","name":"web","object":` + podJSON + `}`), `changes[0].object.metadata.namespace: got "default", want ""`},
		{"object no rv", change(`{"type":"ADDED","resource":"pods","name":"a","object":{"metadata":{"name":"a"}}}`), `changes[0].object.metadata.resourceVersion: got ""`},
		{"second change", change(`{"type":"DELETED","resource":"pods","name":"a"},{"type":"DELETED","resource":"pods"}`), `changes[1].name: got ""`},
		{"too big", `{"type":"RELIST","rev":5,"prev":2,"x":"` + strings.Repeat("a", MaxEventBytes) + `"}`, "limit 16777216"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeEvent([]byte(c.payload))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v, want one containing %q", err, c.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "decode event: ") {
				t.Errorf("got error %q, want the prefix \"decode event: \"", err)
			}
		})
	}
}

func TestDecodeAck(t *testing.T) {
	good := map[string]Ack{
		`{"type":"ACK","rev":12}`:  {Type: AckApplied, Rev: 12},
		`{"type":"HELLO","rev":0}`: {Type: AckHello, Rev: 0},
		`{"type":"HELLO","rev":3}`: {Type: AckHello, Rev: 3},
	}
	for payload, want := range good {
		got, err := DecodeAck([]byte(payload))
		if err != nil || got != want {
			t.Errorf("DecodeAck(%s): got %+v, %v, want %+v", payload, got, err, want)
		}
	}
	bad := map[string]string{
		`{"type":"ACK","rev":0}`:          "rev: got 0, want > 0 for ACK",
		`{"type":"HELLO","rev":-2}`:       "rev: got -2, want >= 0",
		`{"type":"NACK","rev":1}`:         `type: got "NACK", want ACK or HELLO`,
		`{"type":"ACK","rev":1,"node":1}`: `unknown field "node"`,
		`"ACK"`:                           "payload is not a JSON object",
		`{"type":"ACK","rev":1}` + strings.Repeat(" ", MaxAckBytes): "limit 1024",
	}
	for payload, want := range bad {
		if _, err := DecodeAck([]byte(payload)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeAck(%.40s): got error %v, want one containing %q", payload, err, want)
		}
	}
}

func TestDecodeWatchEvent(t *testing.T) {
	payload := `{"type":"MODIFIED","resource":"pods","namespace":"default","name":"web","rev":7,"object":` + podJSON + `}`
	w, err := DecodeWatchEvent([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	if w.Type != Modified || w.Rev != 7 || w.Name != "web" || w.Namespace != "default" || w.Resource != "pods" {
		t.Errorf("got %+v, want MODIFIED pods/default/web at 7", w)
	}
	bad := map[string]string{
		`{"type":"DELETED","resource":"pods","namespace":"default","name":"web","rev":7}`:                        "object: missing",
		`{"type":"ADDED","resource":"pods","namespace":"default","name":"web","rev":0,"object":` + podJSON + `}`: "rev: got 0",
	}
	for payload, want := range bad {
		if _, err := DecodeWatchEvent([]byte(payload)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got error %v, want one containing %q", err, want)
		}
	}
}

func TestEncodeRefusesWhatDecodeRefuses(t *testing.T) {
	if _, err := (&Event{Type: EventChanges, Rev: 3, Prev: 3}).Encode(); err == nil {
		t.Error("Encode of prev == rev: got no error, want one")
	}
	if _, err := (Ack{Type: AckApplied}).Encode(); err == nil {
		t.Error("Encode of ACK rev 0: got no error, want one")
	}
	if _, err := (&WatchEvent{Type: Added, ObjectRef: ObjectRef{Resource: "pods", Name: "a"}, Rev: 1}).Encode(); err == nil {
		t.Error("Encode of a watch event without object: got no error, want one")
	}
}
