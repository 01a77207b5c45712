package logs

import (
	"context"
	"io"

	"github.com/bramble-edge/bramble/mqtt"
)

// FetchNodeMetrics asks node's agent for its Prometheus metrics at path
// ("/metrics" or "/metrics/cadvisor") over the agent's own MQTT
// connection, as kubectl logs is served, and copies them to w.
func (s *Streamer) FetchNodeMetrics(ctx context.Context, node, path string, w io.Writer) error {
	if err := s.subscribe(); err != nil {
		return err
	}
	return s.call(ctx, node, &mqtt.RPCRequest{ID: newID(), Kind: mqtt.RPCKindMetrics, Path: path}, w)
}
