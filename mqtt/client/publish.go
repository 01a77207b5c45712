package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bramble-edge/bramble/mqtt"
)

// ErrNotConnected is returned by Publish when a QoS 0 message finds no
// open connection (it would be lost), or a QoS 1 message finds the client
// closed.
var ErrNotConnected = errors.New("mqtt client: not connected")

// Publish sends payload on one of the node's own topics (below
// mqtt.NodeSubtree of the node): heartbeats on StatusTopic with QoS 0, pod
// status on PodStatusTopic with QoS 1. A QoS 0 message is handed to an
// open connection and may still be lost, as heartbeats may; without one
// Publish fails with ErrNotConnected, so the caller knows to try again
// soon. A QoS 1 message is waited for until the broker acknowledges it or
// ctx ends (while (re)connecting, paho keeps it and sends it once
// connected).
func (c *Client) Publish(ctx context.Context, topic string, qos byte, payload []byte) error {
	if !strings.HasPrefix(topic, mqtt.NodeSubtree(c.node)) {
		return fmt.Errorf("publish %s: node %s may publish only below %s", topic, c.node, mqtt.NodeSubtree(c.node))
	}
	if qos > 1 {
		return fmt.Errorf("publish %s: qos %d: must be 0 or 1", topic, qos)
	}
	if !c.mqtt.IsConnected() || (qos == 0 && !c.mqtt.IsConnectionOpen()) {
		return fmt.Errorf("publish %s: %w", topic, ErrNotConnected)
	}
	tok := c.mqtt.Publish(topic, qos, false, payload)
	if qos == 0 {
		return nil
	}
	select {
	case <-tok.Done():
		if err := tok.Error(); err != nil {
			return fmt.Errorf("publish %s: %w", topic, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("publish %s: %w", topic, ctx.Err())
	}
}
