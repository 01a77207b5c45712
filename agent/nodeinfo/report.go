package nodeinfo

import (
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// Report returns the node's status in the shape of the MQTT heartbeat.
func (n *Node) Report() mqtt.NodeReport {
	r := mqtt.NodeReport{
		Capacity:           n.Status.Capacity,
		Allocatable:        n.Status.Allocatable,
		Addresses:          n.Status.Addresses,
		NodeInfo:           n.Status.NodeInfo,
		Images:             n.Status.Images,
		ImagePlatforms:     n.ImagePlatforms,
		TemperatureCelsius: n.TemperatureCelsius,
	}
	for _, c := range n.Status.Conditions {
		r.Conditions = append(r.Conditions, mqtt.NodeCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
	}
	return r
}

// Heartbeat returns the status-topic message for this collection; seq
// counts heartbeats from 1 and interval is how often they are sent.
func (n *Node) Heartbeat(seq uint64, interval time.Duration) *mqtt.Heartbeat {
	return &mqtt.Heartbeat{
		Node:            n.Name,
		Seq:             seq,
		IntervalSeconds: int32(interval / time.Second),
		Labels:          n.Labels,
		Taints:          n.Taints,
		Annotations:     n.Annotations,
		Status:          n.Report(),
	}
}
