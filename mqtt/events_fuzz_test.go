package mqtt

import (
	"reflect"
	"testing"
)

// The decoders read what any MQTT client may publish (acks come from nodes;
// events could come from a compromised broker): they must never panic, and
// what they accept must survive a round trip.

func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"type":"CHANGES","rev":9,"prev":4,"changes":[{"type":"ADDED","resource":"pods","namespace":"default","name":"web","object":` + podJSON + `}]}`))
	f.Add([]byte(`{"type":"CHANGES","rev":9,"prev":4,"changes":[{"type":"DELETED","resource":"secrets","namespace":"a","name":"b"}]}`))
	f.Add([]byte(`{"type":"RELIST","rev":30,"prev":12}`))
	f.Add([]byte(`{"type":"CHANGES","rev":1,"prev":0}`))
	f.Add([]byte(`{"type":"CHANGES","rev":2,"prev":1,"changes":null}`))
	f.Add([]byte(`{"rev":1e3}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeEvent(data)
		if err != nil {
			return
		}
		again, err := e.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodeEvent(again)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", again, err)
		}
		if back.Type != e.Type || back.Rev != e.Rev || back.Prev != e.Prev || len(back.Changes) != len(e.Changes) {
			t.Fatalf("round trip: got %+v, want %+v", back, e)
		}
	})
}

func FuzzDecodeAck(f *testing.F) {
	f.Add([]byte(`{"type":"ACK","rev":12}`))
	f.Add([]byte(`{"type":"HELLO","rev":0}`))
	f.Add([]byte(`{"type":"HELLO","rev":-1}`))
	f.Add([]byte(`{"type":"ACK","rev":9223372036854775807}`))
	f.Add([]byte(`{"type":"ACK","rev":1,"type":"HELLO"}`))
	f.Add([]byte(` {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeAck(data)
		if err != nil {
			return
		}
		again, err := a.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodeAck(again)
		if err != nil || back != a {
			t.Fatalf("round trip of %q: got %+v, %v, want %+v", data, back, err, a)
		}
	})
}

func FuzzDecodeWatchEvent(f *testing.F) {
	f.Add([]byte(`{"type":"MODIFIED","resource":"pods","namespace":"default","name":"web","rev":7,"object":` + podJSON + `}`))
	f.Add([]byte(`{"type":"DELETED","resource":"nodes","name":"pi-1","rev":3,"object":{"metadata":{"name":"pi-1","resourceVersion":"3"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := DecodeWatchEvent(data)
		if err != nil {
			return
		}
		again, err := w.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodeWatchEvent(again)
		if err != nil || !reflect.DeepEqual(back.ObjectRef, w.ObjectRef) || back.Rev != w.Rev {
			t.Fatalf("round trip of %q: got %+v, %v, want %+v", data, back, err, w)
		}
	})
}
