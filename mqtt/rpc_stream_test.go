package mqtt_test

import (
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

func TestStreamRequestRoundTrip(t *testing.T) {
	in := &mqtt.RPCRequest{ID: "x1", Kind: mqtt.RPCKindExec, Stream: &mqtt.StreamRequest{Namespace: "d", Pod: "p",
		UID: "u", Container: "c", Command: []string{"sh", "-c", "exit 3"}, Stdin: true, TTY: true, Tunnel: mqtt.TunnelPath("x1")}}
	b, err := in.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	out, err := mqtt.DecodeRPCRequest(b)
	if err != nil || out.Stream == nil || out.Stream.Command[2] != "exit 3" || !out.Stream.TTY {
		t.Fatalf("got %+v, %v; want %+v", out, err, in)
	}
}

func TestStreamRequestRejects(t *testing.T) {
	const names = `"namespace":"d","pod":"p","uid":"u"`
	for payload, want := range map[string]string{
		`{"id":"a","kind":"exec","stream":{` + names + `,"container":"c","tunnel":"/bramble/v1/tunnels/a"}}`:                                         "command of 0",
		`{"id":"a","kind":"exec","stream":{` + names + `,"container":"c","command":["x"],"tunnel":"/elsewhere"}}`:                                    `tunnel "/elsewhere"`,
		`{"id":"a","kind":"exec","stream":{` + names + `,"container":"c","command":["a\u0000b"],"tunnel":"/bramble/v1/tunnels/a"}}`:                  "NUL",
		`{"id":"a","kind":"portforward","stream":{` + names + `,"port":70000,"tunnel":"/bramble/v1/tunnels/a"}}`:                                     "port 70000",
		`{"id":"a","kind":"exec","stream":{"namespace":"d","pod":"p","uid":"u/2","container":"c","command":["x"],"tunnel":"/bramble/v1/tunnels/a"}}`: `uid "u/2"`,
		`{"id":"a","kind":"portforward"}`: "needs a stream",
	} {
		_, err := mqtt.DecodeRPCRequest([]byte(payload))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeRPCRequest(%.90s): got %v, want an error with %q", payload, err, want)
		}
	}
}
