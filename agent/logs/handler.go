package logs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/agent/pods"
	"github.com/bramble-edge/bramble/mqtt"
)

// Publisher sends one message on the node's own topics; the agent's MQTT
// client (*client.Client) is one. QoS 1 Publish waits for the broker's
// acknowledgement.
type Publisher interface {
	Publish(ctx context.Context, topic string, qos byte, payload []byte) error
}

// Config configures a Handler; Node is required.
type Config struct {
	// PodLogDir is the agent's --pod-log-dir, where the pods' log files
	// live (default pods.DefaultPodLogDir).
	PodLogDir string
	Node      string
	Logger    *slog.Logger
	// Poll is how often a followed log is checked for new lines (default 250ms).
	Poll time.Duration
	// IdleTimeout ends a stream when the server has sent no ack or
	// heartbeat for this long (default 45s; the server beats every 10s).
	IdleTimeout time.Duration
	// KeepAlive is how often a quiet followed log sends an empty chunk, so
	// the server knows the agent is still there (default 15s).
	KeepAlive time.Duration
	// MaxStreams bounds concurrent streams (default 32); more are refused.
	MaxStreams int
	// Metrics renders the agent's metrics at a path ("/metrics",
	// "/metrics/cadvisor") for metrics requests; nil answers them 404.
	Metrics func(path string) ([]byte, error)
}

// Handler answers log requests arriving on the node's rpc/req topic. Give
// Handle every message from that topic; Close ends all streams.
type Handler struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	streams map[string]*stream
	closed  bool
	wg      sync.WaitGroup
}

// NewHandler returns a Handler with cfg's defaults filled in.
func NewHandler(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.PodLogDir == "" {
		cfg.PodLogDir = pods.DefaultPodLogDir
	}
	cfg.Poll = orDefault(cfg.Poll, 250*time.Millisecond)
	cfg.IdleTimeout = orDefault(cfg.IdleTimeout, 45*time.Second)
	cfg.KeepAlive = orDefault(cfg.KeepAlive, 15*time.Second)
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = 32
	}
	return &Handler{cfg: cfg, log: cfg.Logger.With("component", "logs"), streams: map[string]*stream{}}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Handle takes one message from the node's rpc/req topic; pub carries the
// answer. It never blocks: streams run on their own goroutines, so it is
// safe on the MQTT client's delivery goroutine.
func (h *Handler) Handle(pub Publisher, topic string, payload []byte) {
	if topic != mqtt.RPCRequestTopic(h.cfg.Node) {
		return
	}
	req, err := mqtt.DecodeRPCRequest(payload)
	if err != nil {
		h.log.Warn("dropping an rpc request that does not decode", "err", err)
		return
	}
	switch req.Kind {
	case mqtt.RPCKindLogs, mqtt.RPCKindMetrics:
		h.start(pub, req)
	case mqtt.RPCKindAck:
		if s := h.stream(req.ID); s != nil {
			s.ack(req.Seq)
		}
	case mqtt.RPCKindCancel:
		if s := h.stream(req.ID); s != nil {
			s.cancel(errCancelled)
		}
	}
}

var (
	errCancelled = errors.New("the server cancelled the stream")
	errIdle      = errors.New("no heartbeat from the server")
)

func (h *Handler) stream(id string) *stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams[id]
}

func (h *Handler) start(pub Publisher, req *mqtt.RPCRequest) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.streams[req.ID] != nil {
		return // closing, or a QoS 1 duplicate
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	s := newStream(h, pub, req, cancel)
	if len(h.streams) >= h.cfg.MaxStreams {
		s.refuse = true
	}
	h.streams[req.ID] = s
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		s.run(ctx)
		h.mu.Lock()
		delete(h.streams, req.ID)
		h.mu.Unlock()
		cancel(nil)
	}()
}

// Close ends every stream and waits for them; later requests are ignored.
func (h *Handler) Close() {
	h.mu.Lock()
	h.closed = true
	for _, s := range h.streams {
		s.cancel(errors.New("the agent is stopping"))
	}
	h.mu.Unlock()
	h.wg.Wait()
}

// Active is the number of streams in progress.
func (h *Handler) Active() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}
