package streams

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
)

// fakeRuntime has one running container, "c1" of pod uid "u", with a
// console when console is set; an attach writes "hi" and returns.
type fakeRuntime struct{ console bool }

func (f fakeRuntime) ListContainers(context.Context) ([]runtime.ContainerStatus, error) {
	return []runtime.ContainerStatus{{ID: "c1", PodUID: "u", Name: "app", State: runtime.StateRunning}}, nil
}

func (f fakeRuntime) ExecStream(context.Context, string, []string, runtime.ExecStreams) (int, error) {
	return 0, nil
}

func (f fakeRuntime) HasConsole(id string) bool { return f.console && id == "c1" }

func (f fakeRuntime) AttachStream(_ context.Context, _ string, s runtime.ExecStreams) error {
	_, err := s.Stdout.Write([]byte("hi"))
	return err
}

// pipeDialer hands the handler one end of a pipe; the test holds the other.
type pipeDialer struct{ agent net.Conn }

func (d pipeDialer) Dial(context.Context, string) (net.Conn, error) { return d.agent, nil }

// attachFrames serves one attach request and returns the frames the
// server would read.
func attachFrames(t *testing.T, rt fakeRuntime) []tunnel.Result {
	t.Helper()
	server, agent := net.Pipe()
	h := NewHandler(Config{Node: "n", Runtime: rt, Dialer: pipeDialer{agent}})
	defer h.Close()
	go h.serve(&mqtt.RPCRequest{ID: "1", Kind: mqtt.RPCKindAttach, Stream: &mqtt.StreamRequest{
		Namespace: "ns", Pod: "p", UID: "u", Container: "app", Stdout: true}}, false)
	fr := tunnel.NewReader(server)
	var results []tunnel.Result
	for {
		ch, p, err := fr.Read()
		if err != nil {
			return results
		}
		switch ch {
		case tunnel.Status:
			res, err := tunnel.DecodeResult(p)
			if err != nil {
				t.Fatalf("status frame: %v", err)
			}
			results = append(results, res)
			if len(results) == 2 || res.Code != 0 {
				server.Close()
				return results
			}
		case tunnel.Stdout:
			if string(p) != "hi" {
				t.Fatalf("stdout frame: got %q, want \"hi\"", p)
			}
		}
	}
}

// TestAttachAcceptedWithConsole: accepted, the output, then exit 0.
func TestAttachAcceptedWithConsole(t *testing.T) {
	got := attachFrames(t, fakeRuntime{console: true})
	if len(got) != 2 || got[0] != (tunnel.Result{}) || got[1] != (tunnel.Result{}) {
		t.Fatalf("frames: got %+v, want acceptance then exit code 0", got)
	}
}

// TestAttachRefusedWithoutConsole: a 400 naming the container and why.
func TestAttachRefusedWithoutConsole(t *testing.T) {
	got := attachFrames(t, fakeRuntime{})
	if len(got) != 1 || got[0].Code != http.StatusBadRequest || !strings.Contains(got[0].Error, `container "app"`) ||
		!strings.Contains(got[0].Error, "stdin: true or tty: true") {
		t.Fatalf("frames: got %+v, want one 400 naming the container and stdin/tty", got)
	}
}
