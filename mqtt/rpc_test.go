package mqtt_test

import (
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

func i64(n int64) *int64 { return &n }

func TestRPCRequestRoundTrip(t *testing.T) {
	in := &mqtt.RPCRequest{ID: "abc-1", Kind: mqtt.RPCKindLogs, Namespace: "default", Pod: "p", UID: "u-1",
		Container: "c", Follow: true, Timestamps: true, TailLines: i64(2), SinceSeconds: i64(60), LimitBytes: i64(10)}
	b, err := in.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	out, err := mqtt.DecodeRPCRequest(b)
	if err != nil {
		t.Fatalf("DecodeRPCRequest(%s): %v", b, err)
	}
	if *out.TailLines != 2 || !out.Follow || out.Container != "c" || *out.LimitBytes != 10 {
		t.Fatalf("got %+v, want %+v", out, in)
	}
}

func TestDecodeRPCRequestRejects(t *testing.T) {
	for payload, want := range map[string]string{
		`{"id":"a/b","kind":"ack"}`:                                                    `id "a/b"`,
		`{"id":"a","kind":"exec"}`:                                                     `kind "exec"`,
		`{"id":"a","kind":"ack","seq":-1}`:                                             "seq -1",
		`{"id":"a","kind":"metrics","path":"/stats/summary"}`:                          `path "/stats/summary"`,
		`{"id":"a","kind":"ack","x":1}`:                                                `unknown field "x"`,
		`{"id":"a","kind":"ack"} {}`:                                                   "trailing data",
		`{"id":"a","kind":"logs","pod":"p"}`:                                           "namespace",
		`{"id":"a","kind":"logs","namespace":"d","pod":"p","container":"C","uid":"u"}`: `container "C"`,
		`{"id":"a","kind":"logs","namespace":"d","pod":"p","container":"c","uid":"u","tailLines":-1}`:   "tailLines -1",
		`{"id":"a","kind":"logs","namespace":"d","pod":"p","container":"c","uid":"u","sinceSeconds":0}`: "sinceSeconds 0",
		`{"id":"a","kind":"logs","namespace":"d","pod":"p","container":"c","uid":"u/x"}`:                `uid "u/x"`,
		`{"id":"a","kind":"logs","namespace":"d","pod":"p","container":"c","uid":"u","limitBytes":-5}`:  "limitBytes -5",
		`{"id":"a","kind":"ack","pod":"` + strings.Repeat("x", mqtt.RPCMaxRequest) + `"}`:               "must be at most",
	} {
		_, err := mqtt.DecodeRPCRequest([]byte(payload))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeRPCRequest(%.80s): got %v, want an error with %q", payload, err, want)
		}
	}
}

func TestDecodeRPCChunkRejects(t *testing.T) {
	for payload, want := range map[string]string{
		`{"id":"a","seq":0}`:                              "seq 0",
		`{"id":"a","seq":1,"error":"x","code":404}`:       "must come with eof",
		`{"id":"a","seq":1,"error":"x","eof":true}`:       "code 0",
		`{"id":"a","seq":1,"code":404}`:                   "without an error",
		`{"id":"","seq":1}`:                               `id ""`,
		`{"id":"a","seq":1,"data":"not base64!"}`:         "illegal base64",
		`{"id":"a","seq":1,"data":"` + big(40<<10) + `"}`: "data bytes",
	} {
		_, err := mqtt.DecodeRPCChunk([]byte(payload))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeRPCChunk(%.80s): got %v, want an error with %q", payload, err, want)
		}
	}
}

// big is n bytes of data, base64-encoded.
func big(n int) string { return strings.Repeat("AAAA", n/3) }

func FuzzDecodeRPCRequest(f *testing.F) {
	f.Add([]byte(`{"id":"a1","kind":"logs","namespace":"default","pod":"p","uid":"u","container":"c","tailLines":2,"follow":true}`))
	f.Add([]byte(`{"id":"a1","kind":"ack","seq":8}`))
	f.Add([]byte(`{"id":"a1","kind":"cancel"}`))
	f.Add([]byte(`{"id":"a1","kind":"metrics","path":"/metrics/cadvisor"}`))
	f.Add([]byte(`{"id":"a1","kind":"logs","sinceSeconds":-1}`))
	f.Add([]byte(`{"id":"a1","kind":"exec","stream":{"namespace":"d","pod":"p","uid":"u","container":"c","command":["sh","-c","exit 3"],"stdin":true,"tty":true,"tunnel":"/bramble/v1/tunnels/a1"}}`))
	f.Add([]byte(`{"id":"a1","kind":"portforward","stream":{"namespace":"d","pod":"p","uid":"u","port":8080,"tunnel":"/bramble/v1/tunnels/a1"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := mqtt.DecodeRPCRequest(b)
		if err != nil {
			return
		}
		again, err := r.Encode()
		if err != nil {
			t.Fatalf("a decoded request does not encode: %v", err)
		}
		if _, err := mqtt.DecodeRPCRequest(again); err != nil {
			t.Fatalf("a re-encoded request does not decode: %v (%s)", err, again)
		}
	})
}

func FuzzDecodeRPCChunk(f *testing.F) {
	f.Add([]byte(`{"id":"a1","seq":1,"data":"aGVsbG8K"}`))
	f.Add([]byte(`{"id":"a1","seq":3,"eof":true}`))
	f.Add([]byte(`{"id":"a1","seq":2,"eof":true,"error":"no such container","code":404}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := mqtt.DecodeRPCChunk(b)
		if err != nil {
			return
		}
		if len(c.Data) > mqtt.RPCMaxChunk || c.Seq < 1 {
			t.Fatalf("decoded an out-of-bounds chunk: seq %d, %d bytes", c.Seq, len(c.Data))
		}
		again, err := c.Encode()
		if err != nil {
			t.Fatalf("a decoded chunk does not encode: %v", err)
		}
		if _, err := mqtt.DecodeRPCChunk(again); err != nil {
			t.Fatalf("a re-encoded chunk does not decode: %v", err)
		}
	})
}
