// Package streams is the agent's side of kubectl exec, attach and
// port-forward. A request arrives on the node's rpc/req topic; the agent
// dials the server (the server never dials an agent), upgrades the
// request's tunnel path and carries the stream in mqtt/tunnel frames on
// that connection. Its first frame accepts or refuses the stream.
package streams

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
)

// Runtime is what the handler needs from the container runtime.
type Runtime interface {
	ListContainers(ctx context.Context) ([]runtime.ContainerStatus, error)
	ExecStream(ctx context.Context, id string, cmd []string, s runtime.ExecStreams) (int, error)
	HasConsole(id string) bool
	AttachStream(ctx context.Context, id string, s runtime.ExecStreams) error
}

// TunnelDialer opens the tunnel at path on the server (*Dialer is one).
type TunnelDialer interface {
	Dial(ctx context.Context, path string) (net.Conn, error)
}

// Config configures a Handler; Node, Runtime and Dialer are required.
type Config struct {
	Node    string
	Runtime Runtime
	Dialer  TunnelDialer
	// Disabled refuses every stream (the agent's --disable-exec).
	Disabled bool
	Logger   *slog.Logger
	// MaxStreams bounds concurrent streams (default 64); more are refused.
	MaxStreams int
}

// Handler serves stream requests. Give Handle every message of the node's
// rpc/req topic; it ignores the kinds it does not serve.
type Handler struct {
	cfg    Config
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	active map[string]bool // by request id: a QoS 1 duplicate is ignored
}

// NewHandler returns a Handler; Close ends its streams.
func NewHandler(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = 64
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Handler{cfg: cfg, log: cfg.Logger.With("component", "streams"), ctx: ctx, cancel: cancel,
		active: map[string]bool{}}
}

// Handle takes one rpc/req message. It never blocks.
func (h *Handler) Handle(topic string, payload []byte) {
	if topic != mqtt.RPCRequestTopic(h.cfg.Node) {
		return
	}
	req, err := mqtt.DecodeRPCRequest(payload)
	if err != nil || req.Stream == nil {
		return // the log handler reports what does not decode
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx.Err() != nil || h.active[req.ID] {
		return
	}
	refuse := len(h.active) >= h.cfg.MaxStreams
	h.active[req.ID] = true
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.serve(req, refuse)
		h.mu.Lock()
		delete(h.active, req.ID)
		h.mu.Unlock()
	}()
}

// Close ends every stream and waits for them.
func (h *Handler) Close() {
	h.cancel()
	h.wg.Wait()
}

// refusal is a stream the agent will not run, with its HTTP-like code.
type refusal struct {
	code int
	msg  string
}

func (r *refusal) Error() string { return r.msg }

func (h *Handler) serve(req *mqtt.RPCRequest, busy bool) {
	conn, err := h.cfg.Dialer.Dial(h.ctx, req.Stream.Tunnel)
	if err != nil {
		h.log.Warn("cannot open a stream tunnel", "id", req.ID, "kind", req.Kind, "err", err)
		return
	}
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	go func() { <-ctx.Done(); conn.Close() }()
	fw := tunnel.NewWriter(conn)
	if err := h.admit(req, busy); err != nil {
		_ = fw.WriteJSON(tunnel.Status, tunnel.Result{Error: err.msg, Code: err.code})
		return
	}
	switch req.Kind {
	case mqtt.RPCKindExec, mqtt.RPCKindAttach:
		err = h.exec(ctx, cancel, conn, fw, req.Kind, req.Stream)
	case mqtt.RPCKindPortForward:
		err = h.forward(ctx, conn, fw, req.Stream)
	}
	if err != nil {
		h.log.Debug("stream ended with an error", "id", req.ID, "kind", req.Kind, "err", err)
	}
}

func (h *Handler) admit(req *mqtt.RPCRequest, busy bool) *refusal {
	switch {
	case h.cfg.Disabled:
		return &refusal{http.StatusForbidden, fmt.Sprintf(
			"exec, attach and port-forward are disabled on node %q (its agent runs with --disable-exec)", h.cfg.Node)}
	case busy:
		return &refusal{http.StatusTooManyRequests, fmt.Sprintf("node %q already serves %d streams", h.cfg.Node, h.cfg.MaxStreams)}
	}
	return nil
}
