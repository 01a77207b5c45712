package mqtt

import (
	"strings"
	"testing"
)

func TestViewRoundTripAndChecks(t *testing.T) {
	web := `{"type":"ADDED","resource":"pods","namespace":"default","name":"web","object":` + podJSON + `}`
	for _, ok := range []string{
		`{"rev":9,"since":0,"full":true,"changes":[` + web + `]}`,
		`{"rev":9,"since":4,"full":false,"changes":[{"type":"DELETED","resource":"secrets","namespace":"a","name":"b"}]}`,
		`{"rev":9,"since":9,"full":false,"changes":null}`,
	} {
		v, err := DecodeView([]byte(ok))
		if err != nil {
			t.Errorf("%s: %v", ok, err)
			continue
		}
		again, err := v.Encode()
		if err != nil {
			t.Errorf("%s: encode: %v", ok, err)
		} else if _, err := DecodeView(again); err != nil {
			t.Errorf("%s: round trip: %v", ok, err)
		}
	}
	for bad, field := range map[string]string{
		`{"rev":0,"since":0,"full":true,"changes":[]}`:                                                                   "rev: got 0",
		`{"rev":9,"since":3,"full":true,"changes":[]}`:                                                                   "since: got 3 for a full view",
		`{"rev":9,"since":0,"full":false,"changes":[]}`:                                                                  "since: got 0",
		`{"rev":9,"since":10,"full":false,"changes":[]}`:                                                                 "since: got 10",
		`{"rev":9,"since":0,"full":true,"changes":[` + strings.Replace(web, "ADDED", "MODIFIED", 1) + `]}`:               "changes[0].type",
		`{"rev":9,"since":0,"full":true,"changes":[` + strings.Replace(web, `"web","object"`, `"db","object"`, 1) + `]}`: "changes[0].object.metadata.name",
		`{"rev":9,"since":0,"full":true,"changes":[],"extra":1}`:                                                         "extra",
		`[]`: "not a JSON object",
	} {
		_, err := DecodeView([]byte(bad))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: got %v, want an error naming %q", bad, err, field)
		}
	}
}

func TestViewPath(t *testing.T) {
	if got := ViewPath("pi-1"); got != "/v1-bramble/nodes/pi-1/view" {
		t.Errorf("ViewPath: got %q", got)
	}
	for path, want := range map[string]string{
		"/v1-bramble/nodes/pi-1/view":   "pi-1",
		"/v1-bramble/nodes//view":       "",
		"/v1-bramble/nodes/a/b/view":    "",
		"/v1-bramble/nodes/pi-1/status": "",
		"/api/v1/nodes/pi-1/view":       "",
	} {
		got, ok := NodeOfViewPath(path)
		if got != want || ok != (want != "") {
			t.Errorf("NodeOfViewPath(%q): got %q, %v; want %q", path, got, ok, want)
		}
	}
}

// FuzzDecodeView: a View comes from the API server over HTTPS; the
// decoder must never panic, and what it accepts must round-trip.
func FuzzDecodeView(f *testing.F) {
	f.Add([]byte(`{"rev":9,"since":0,"full":true,"changes":[{"type":"ADDED","resource":"pods","namespace":"default","name":"web","object":` + podJSON + `}]}`))
	f.Add([]byte(`{"rev":9,"since":4,"full":false,"changes":[{"type":"DELETED","resource":"secrets","namespace":"a","name":"b"}]}`))
	f.Add([]byte(`{"rev":9,"since":9,"full":false}`))
	f.Add([]byte(`{"rev":1e3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeView(data)
		if err != nil {
			return
		}
		again, err := v.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodeView(again)
		if err != nil || back.Rev != v.Rev || back.Since != v.Since || back.Full != v.Full || len(back.Changes) != len(v.Changes) {
			t.Fatalf("round trip of %q: got %+v, %v; want %+v", data, back, err, v)
		}
	})
}
