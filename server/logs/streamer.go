// Package logs is the server's side of kubectl logs: it asks the pod's
// agent over MQTT (a request on the node's rpc/req topic) and copies the
// chunks the agent answers with (on rpc/resp/{id}) to the HTTP response.
// The server never dials an agent. The contract, flow control included, is
// in package mqtt (rpc.go).
package logs

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// Streamer implements the API's LogStreamer over the server's MQTT Bus.
// The timeouts may be changed before the first StreamLogs.
type Streamer struct {
	bus mqtt.Bus
	log *slog.Logger
	// FirstReply is how long to wait for the agent's first chunk (default 10s).
	FirstReply time.Duration
	// Idle is how long a stream may go without a chunk once started
	// (default 60s; a following agent sends an empty one every 15s).
	Idle time.Duration
	// Heartbeat is how often the server repeats its ack so the agent knows
	// it is still listening (default 10s; agents give up after 45s).
	Heartbeat time.Duration

	mu         sync.Mutex
	subscribed bool
	calls      map[string]*call // by node + "/" + id
}

// New returns a Streamer publishing and subscribing through bus. It
// subscribes to every node's rpc responses on first use.
func New(bus mqtt.Bus, log *slog.Logger) *Streamer {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Streamer{bus: bus, log: log.With("component", "logs"), FirstReply: 10 * time.Second,
		Idle: time.Minute, Heartbeat: 10 * time.Second, calls: map[string]*call{}}
}

// call is one StreamLogs waiting for chunks.
type call struct {
	chunks   chan *mqtt.RPCChunk
	overflow chan struct{} // closed when the agent ignored the window
	once     sync.Once
}

// responseFilter matches every node's rpc responses.
const responseFilter = mqtt.Prefix + "/nodes/+/rpc/resp/+"

func (s *Streamer) subscribe() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subscribed {
		return nil
	}
	if err := s.bus.Subscribe(responseFilter, 1, s.onChunk); err != nil {
		return fmt.Errorf("subscribe to log responses: %w", err)
	}
	s.subscribed = true
	return nil
}

// onChunk runs on the bus's delivery path: decode, route, never block.
func (s *Streamer) onChunk(topic string, payload []byte) {
	node, ok := mqtt.NodeOfTopic(topic)
	id, idOK := strings.CutPrefix(topic, mqtt.RPCResponseTopic(node, ""))
	if !ok || !idOK {
		return
	}
	c, err := mqtt.DecodeRPCChunk(payload)
	if err != nil || c.ID != id {
		s.log.Warn("dropping a log chunk that does not decode", "topic", topic, "err", err)
		return
	}
	s.mu.Lock()
	waiting := s.calls[node+"/"+id]
	s.mu.Unlock()
	if waiting == nil {
		return // the request is over
	}
	select {
	case waiting.chunks <- c:
	default:
		waiting.once.Do(func() { close(waiting.overflow) })
	}
}

func (s *Streamer) register(node, id string) *call {
	c := &call{chunks: make(chan *mqtt.RPCChunk, 2*mqtt.RPCWindow+4), overflow: make(chan struct{})}
	s.mu.Lock()
	s.calls[node+"/"+id] = c
	s.mu.Unlock()
	return c
}

func (s *Streamer) unregister(node, id string) {
	s.mu.Lock()
	delete(s.calls, node+"/"+id)
	s.mu.Unlock()
}

func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// request is what the agent is asked for.
func request(id string, pod *corev1.Pod, opts *corev1.PodLogOptions) *mqtt.RPCRequest {
	r := &mqtt.RPCRequest{ID: id, Kind: mqtt.RPCKindLogs, Namespace: pod.Namespace, Pod: pod.Name,
		UID: string(pod.UID), Container: opts.Container, Follow: opts.Follow, Previous: opts.Previous,
		Timestamps: opts.Timestamps, TailLines: opts.TailLines, SinceSeconds: opts.SinceSeconds, LimitBytes: opts.LimitBytes}
	if opts.SinceTime != nil {
		secs := max(int64(math.Ceil(time.Since(opts.SinceTime.Time).Seconds())), 1)
		r.SinceSeconds = &secs
	}
	return r
}
