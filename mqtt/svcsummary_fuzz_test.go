package mqtt

import "testing"

// Summaries reach agents from the network: the decoder must never panic,
// and what it accepts must survive a round trip unchanged.
func FuzzDecodeServiceSummary(f *testing.F) {
	good, err := sampleSummary().Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"metadata":{"namespace":"a","name":"b"}}`))
	f.Add([]byte(`{"metadata":{"namespace":"a","name":"b"},"hosts":[{"node":"n","ip":"1.2.3.4","endpoints":2147483648}]}`))
	f.Add([]byte(`{"metadata":{"namespace":"a","name":"b"},"relays":[{"protocol":"TCP","relay":-1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeServiceSummary(data)
		if err != nil {
			return
		}
		again, err := s.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodeServiceSummary(again)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", again, err)
		}
		if third, _ := back.Encode(); string(third) != string(again) {
			t.Fatalf("round trip: got %s, want %s", third, again)
		}
	})
}
