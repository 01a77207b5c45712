package mqtt

import (
	"encoding/json"
	"fmt"
	"time"
)

// The events an agent reports (docs/EVENTS.md), on a node's events topic
// (QoS 1), batched: what the kubelet would write as core/v1 Events about
// the node and its pods. The agent aggregates repeats of one event into a
// series with a rising count, as the kubelet's correlator does, and every
// report carries a series' whole count so far, never an increment: a
// report delivered twice, or one lost and followed by the next, leaves the
// same Event behind.

// EventReport is one message on bramble/v1/nodes/{node}/events.
type EventReport struct {
	// Node must equal the {node} of the topic.
	Node   string      `json:"node"`
	Events []NodeEvent `json:"events,omitempty"`
	// Dropped counts the events the agent could not keep since its last
	// report (its buffer was full while it could not send).
	Dropped uint64 `json:"dropped,omitempty"`
}

// NodeEvent is one series of identical events about one object.
type NodeEvent struct {
	Object EventObject `json:"object"`
	// Type is Normal or Warning; Reason one CamelCase word.
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Count is how often the event happened since FirstTimestamp, the
	// last time at LastTimestamp.
	Count          int32     `json:"count"`
	FirstTimestamp time.Time `json:"firstTimestamp"`
	LastTimestamp  time.Time `json:"lastTimestamp"`
}

// EventObject is what an event is about: the node itself or one of its
// pods (a container of it named by FieldPath, "spec.containers{web}").
type EventObject struct {
	// Kind is "Pod" or "Node".
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	UID       string `json:"uid,omitempty"`
	FieldPath string `json:"fieldPath,omitempty"`
}

// Kinds of EventObject.
const (
	EventKindPod  = "Pod"
	EventKindNode = "Node"
)

// Encode checks r and returns its JSON payload.
func (r *EventReport) Encode() ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("encode events: %w", err)
	}
	return json.Marshal(r)
}

// DecodeEvents decodes and checks an events-topic payload. Unknown,
// duplicate or differently cased fields are errors, and every error names
// the field that is wrong.
func DecodeEvents(data []byte) (*EventReport, error) {
	var r EventReport
	if err := decodeStrict(data, MaxEventsBytes, &r); err != nil {
		return nil, fmt.Errorf("decode events: %w", err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("decode events: %w", err)
	}
	return &r, nil
}
