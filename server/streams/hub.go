// Package streams is the server's side of kubectl exec, attach and
// port-forward: it asks the pod's agent over MQTT (a request on the node's
// rpc/req topic) to open a tunnel back to the server, waits for the
// agent's connection and relays the stream on it in mqtt/tunnel frames.
// The server never dials an agent. docs/EXEC.md has the numbers behind
// the tunnel.
package streams

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
)

// Hub opens tunnels through agents' own connections.
type Hub struct {
	bus mqtt.Bus
	log *slog.Logger
	// DialWait is how long the agent has to open the tunnel (default 10s).
	DialWait time.Duration

	mu      sync.Mutex
	waiting map[string]*waiter // by request id
}

type waiter struct {
	node string
	conn chan net.Conn // buffered 1
}

// New returns a Hub publishing requests on bus.
func New(bus mqtt.Bus, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Hub{bus: bus, log: log.With("component", "streams"), DialWait: 10 * time.Second, waiting: map[string]*waiter{}}
}

// Open asks node's agent for a stream of kind and returns the tunnel once
// the agent accepted it. A refusal is an API Status error.
func (h *Hub) Open(ctx context.Context, node, kind string, s mqtt.StreamRequest) (net.Conn, error) {
	id := newID()
	s.Tunnel = mqtt.TunnelPath(id)
	w := &waiter{node: node, conn: make(chan net.Conn, 1)}
	h.mu.Lock()
	h.waiting[id] = w
	h.mu.Unlock()
	defer h.forget(id)
	payload, err := (&mqtt.RPCRequest{ID: id, Kind: kind, Stream: &s}).Encode()
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := h.bus.Publish(pctx, mqtt.RPCRequestTopic(node), 1, false, payload); err != nil {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("ask node %q for a %s stream: %v", node, kind, err))
	}
	select {
	case conn := <-w.conn:
		return accepted(conn, node)
	case <-time.After(h.DialWait):
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf(
			"node %q did not open the %s tunnel within %s: is its agent running and can it reach this server?", node, kind, h.DialWait))
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (h *Hub) forget(id string) {
	h.mu.Lock()
	w := h.waiting[id]
	delete(h.waiting, id)
	h.mu.Unlock()
	if w == nil {
		return
	}
	select {
	case conn := <-w.conn: // it arrived too late
		conn.Close()
	default:
	}
}

// accepted reads the agent's first frame: an empty Status accepts.
func accepted(conn net.Conn, node string) (net.Conn, error) {
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	ch, p, err := tunnel.NewReader(conn).Read()
	_ = conn.SetReadDeadline(time.Time{})
	if err == nil && ch != tunnel.Status {
		err = fmt.Errorf("first frame on channel %d, want %d", ch, tunnel.Status)
	}
	var res tunnel.Result
	if err == nil {
		res, err = tunnel.DecodeResult(p)
	}
	if err != nil {
		conn.Close()
		return nil, apierrors.NewInternalError(fmt.Errorf("node %q tunnel: %w", node, err))
	}
	if res.Error != "" {
		conn.Close()
		return nil, mqtt.AgentStatus(res.Code, res.Error)
	}
	return conn, nil
}

// Accept serves an agent's tunnel request (GET TunnelPathPrefix+id with
// Upgrade: bramble-tunnel) from user, already authenticated: only the
// node the request went to may open its tunnel.
func (h *Hub) Accept(w http.ResponseWriter, r *http.Request, user string) {
	id := strings.TrimPrefix(r.URL.Path, mqtt.TunnelPathPrefix)
	h.mu.Lock()
	wt := h.waiting[id]
	h.mu.Unlock()
	switch {
	case wt == nil:
		http.Error(w, "no stream waits for tunnel "+id, http.StatusNotFound)
		return
	case user != join.NodeUserPrefix+wt.node:
		http.Error(w, fmt.Sprintf("tunnel %s belongs to node %q, not to %q", id, wt.node, user), http.StatusForbidden)
		return
	case !strings.EqualFold(r.Header.Get("Upgrade"), mqtt.TunnelProtocol):
		http.Error(w, "Upgrade: "+mqtt.TunnelProtocol+" required", http.StatusBadRequest)
		return
	}
	conn, err := hijack(w, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: "+mqtt.TunnelProtocol+"\r\n\r\n")
	if err != nil {
		h.log.Warn("cannot take over a tunnel connection", "node", wt.node, "err", err)
		return
	}
	select {
	case wt.conn <- conn:
	default:
		conn.Close() // a second dial for the same id
	}
}

// hijack takes the connection over from the HTTP server, clears its
// deadlines and writes head.
func hijack(w http.ResponseWriter, head string) (net.Conn, error) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	if _, err := conn.Write([]byte(head)); err != nil {
		conn.Close()
		return nil, err
	}
	if brw.Reader.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: brw.Reader}, nil
	}
	return conn, nil
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
