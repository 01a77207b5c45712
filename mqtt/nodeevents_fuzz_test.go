package mqtt

import "testing"

// Event reports come from nodes: the decoder must never panic, and what it
// accepts must survive a round trip unchanged.
func FuzzDecodeEvents(f *testing.F) {
	good, err := sampleEvents().Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"node":"n","dropped":2}`))
	f.Add([]byte(`{"node":"n","events":[{"object":{"kind":"Node","name":"n"},"type":"Normal","reason":"NodeReady",` +
		`"message":"","count":1,"firstTimestamp":"2026-01-01T00:00:00+01:00","lastTimestamp":"2026-01-01T00:00:00.5+01:00"}]}`))
	f.Add([]byte(`{"node":"n","events":[{"count":2147483648}]}`))
	f.Add([]byte(`{"node":"n","node":"m"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeEvents(data)
		if err != nil {
			return
		}
		again, err := r.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodeEvents(again)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", again, err)
		}
		third, _ := back.Encode()
		if string(third) != string(again) {
			t.Fatalf("round trip: got %s, want %s", third, again)
		}
	})
}
