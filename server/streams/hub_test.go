package streams_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/agent/runtime"
	agentstreams "github.com/bramble-edge/bramble/agent/streams"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/streams"
)

// loopBus hands every request straight to the agent's handler, as the
// broker would deliver it on the node's rpc/req topic.
type loopBus struct{ h *agentstreams.Handler }

func (b *loopBus) Publish(_ context.Context, topic string, _ byte, _ bool, payload []byte) error {
	b.h.Handle(topic, payload)
	return nil
}
func (b *loopBus) Subscribe(string, byte, func(string, []byte)) error { return nil }
func (b *loopBus) Close() error                                       { return nil }

// catRuntime is a fake runtime for the relay's logic: its one container
// runs "cat", then exits with code 3; or, with flood set, writes flood
// bytes to stdout and counts what it managed to write.
type catRuntime struct {
	flood   int64
	written atomic.Int64
}

func (c *catRuntime) ListContainers(context.Context) ([]runtime.ContainerStatus, error) {
	return []runtime.ContainerStatus{{ID: "c1", PodUID: "u1", Name: "c", State: runtime.StateRunning, Pid: 1}}, nil
}

func (c *catRuntime) ExecStream(ctx context.Context, _ string, _ []string, s runtime.ExecStreams) (int, error) {
	if c.flood > 0 {
		buf := make([]byte, 32<<10)
		for c.written.Load() < c.flood {
			n, err := s.Stdout.Write(buf)
			c.written.Add(int64(n))
			if err != nil {
				return 0, err
			}
		}
		return 0, nil
	}
	_, err := io.Copy(s.Stdout, s.Stdin)
	return 3, err
}

// HasConsole: the fake's container was started without stdin or tty.
func (c *catRuntime) HasConsole(string) bool { return false }

func (c *catRuntime) AttachStream(context.Context, string, runtime.ExecStreams) error {
	return errors.New("catRuntime: no console to attach to")
}

type env struct {
	hub *streams.Hub
	rt  *catRuntime
}

// newEnv wires a Hub to a real agent Handler through a TLS server that
// takes every tunnel as coming from user.
func newEnv(t *testing.T, user string, disabled bool) *env { return newEnvAs(t, user, disabled) }

func newEnvB(b *testing.B) *env { return newEnvAs(b, "system:node:n1", false) }

func newEnvAs(t testing.TB, user string, disabled bool) *env {
	t.Helper()
	var hub *streams.Hub
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hub.Accept(w, r, user) }))
	t.Cleanup(srv.Close)
	rt := &catRuntime{}
	d := &agentstreams.Dialer{ServerURL: srv.URL, TLS: func() *tls.Config { return &tls.Config{InsecureSkipVerify: true} }}
	h := agentstreams.NewHandler(agentstreams.Config{Node: "n1", Runtime: rt, Dialer: d, Disabled: disabled})
	t.Cleanup(h.Close)
	hub = streams.New(&loopBus{h: h}, nil)
	hub.DialWait = 2 * time.Second
	return &env{hub: hub, rt: rt}
}

func execRequest() mqtt.StreamRequest {
	return mqtt.StreamRequest{Namespace: "default", Pod: "p", UID: "u1", Container: "c", Command: []string{"cat"},
		Stdin: true, Stdout: true}
}

func TestExecRelaysStdinAndExitCode(t *testing.T) {
	e := newEnv(t, "system:node:n1", false)
	conn, err := e.hub.Open(t.Context(), "n1", mqtt.RPCKindExec, execRequest())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	in := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	var out strings.Builder
	code, err := streams.Exec(t.Context(), conn, streams.ExecIO{Stdin: strings.NewReader(in), Stdout: &out})
	if err != nil || code != 3 || out.String() != in {
		t.Fatalf("Exec: got code %d, %d bytes (equal %v), %v; want 3 and the 1 MiB back", code, out.Len(), out.String() == in, err)
	}
}

func TestDisabledNodeRefuses(t *testing.T) {
	e := newEnv(t, "system:node:n1", true)
	_, err := e.hub.Open(t.Context(), "n1", mqtt.RPCKindExec, execRequest())
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "--disable-exec") {
		t.Fatalf("Open on a disabled node: got %v, want a 403 naming --disable-exec", err)
	}
}

func TestTunnelFromAnotherIdentityIsRefused(t *testing.T) {
	e := newEnv(t, "system:node:n2", false)
	_, err := e.hub.Open(t.Context(), "n1", mqtt.RPCKindExec, execRequest())
	if !apierrors.IsServiceUnavailable(err) {
		t.Fatalf("Open when another node answers: got %v, want 503 (no tunnel from n1)", err)
	}
}

// blockedWriter never returns: a client that stopped reading.
type blockedWriter struct{ release chan struct{} }

func (b blockedWriter) Write(p []byte) (int, error) {
	<-b.release
	return 0, errors.New("released")
}

// TestStuckReaderIsBounded: a client that stops reading stops the
// process's output after what the buffers on the way hold (TCP's and one
// frame on each side), not after the whole 256 MiB.
func TestStuckReaderIsBounded(t *testing.T) {
	e := newEnv(t, "system:node:n1", false)
	e.rt.flood = 256 << 20
	conn, err := e.hub.Open(t.Context(), "n1", mqtt.RPCKindExec, execRequest())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stuck := blockedWriter{release: make(chan struct{})}
	defer close(stuck.release)
	go func() { _, _ = streams.Exec(ctx, conn, streams.ExecIO{Stdout: stuck}) }()
	var last int64 = -1
	for i := 0; i < 100; i++ { // until the producer stops moving
		time.Sleep(50 * time.Millisecond)
		now := e.rt.written.Load()
		if now == last && now > 0 {
			break
		}
		last = now
	}
	if got := e.rt.written.Load(); got > 32<<20 {
		t.Fatalf("the process wrote %d bytes to a client that reads nothing; want the buffers on the way (< 32 MiB) to stop it", got)
	}
	t.Logf("bytes in flight when the reader is stuck: %d", e.rt.written.Load())
}
