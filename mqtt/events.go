package mqtt

import (
	"encoding/json"
	"fmt"
)

// The payloads bramble sends over MQTT, all JSON (docs/MQTT-DELIVERY.md):
//
//   - Event, on a node's desired topic: one revision's worth of changes to
//     the node's view (its pods and the ConfigMaps and Secrets they
//     reference), chained by rev and prev, or a RELIST instruction.
//   - WatchEvent, on bramble/v1/watch/...: one object's change.
//   - Ack, on a node's ack topic: what the node has applied (ACK), or, on
//     every (re)connect, what it holds (HELLO).

// ChangeType says how an object changed in a view.
type ChangeType string

// Change types. ADDED and MODIFIED both mean "the object is now this";
// receivers treat them alike (upsert). DELETED means the object left the
// view: it was deleted, or (desired topic) the node no longer needs it.
const (
	Added    ChangeType = "ADDED"
	Modified ChangeType = "MODIFIED"
	Deleted  ChangeType = "DELETED"
)

// EventType says what a desired-topic Event asks of the node.
type EventType string

const (
	// EventChanges carries changes to apply.
	EventChanges EventType = "CHANGES"
	// EventRelist tells the node to fetch its whole view by REST (the
	// server cannot tell it what it missed) and continue from there.
	EventRelist EventType = "RELIST"
)

// AckType says which of the two node -> server messages an Ack is.
type AckType string

const (
	// AckApplied reports the revision of the last Event applied.
	AckApplied AckType = "ACK"
	// AckHello is sent on every (re)connect with the revision the node
	// holds, so the server can send what it missed.
	AckHello AckType = "HELLO"
)

// ObjectRef names one object: resource is the plural ("pods").
type ObjectRef struct {
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Resource + "/" + r.Name
	}
	return r.Resource + "/" + r.Namespace + "/" + r.Name
}

// Change is one object entering, changing in, or leaving a view. Object is
// the full object in its Kubernetes JSON shape with metadata.resourceVersion
// set; it is always present for ADDED and MODIFIED and may be absent for
// DELETED.
type Change struct {
	Type ChangeType `json:"type"`
	ObjectRef
	Object json.RawMessage `json:"object,omitempty"`
}

// Event is one message on bramble/v1/nodes/{node}/desired.
//
// Rev is the datastore revision the node's view is at after applying the
// changes; Prev is the Rev of the previous Event sent on this node's topic,
// and the promise that nothing in the node's view changed between Prev and
// Rev other than what Changes says. A node that has applied exactly up to
// revision L applies an Event when Prev <= L < Rev, skips it when Rev <= L,
// and has missed something when Prev > L.
type Event struct {
	Type    EventType `json:"type"`
	Rev     int64     `json:"rev"`
	Prev    int64     `json:"prev"`
	Changes []Change  `json:"changes,omitempty"`
}

// WatchEvent is one message on bramble/v1/watch/{resource}/{ns}/{name}:
// one object's change at revision Rev (never a Secret).
type WatchEvent struct {
	Type ChangeType `json:"type"`
	ObjectRef
	Rev    int64           `json:"rev"`
	Object json.RawMessage `json:"object"`
}

// Ack is one message on bramble/v1/nodes/{node}/ack.
type Ack struct {
	Type AckType `json:"type"`
	Rev  int64   `json:"rev"`
}

// Encode checks e and returns its JSON payload.
func (e *Event) Encode() ([]byte, error) {
	if err := e.check(); err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	return json.Marshal(e)
}

// Encode checks w and returns its JSON payload.
func (w *WatchEvent) Encode() ([]byte, error) {
	if err := w.check(); err != nil {
		return nil, fmt.Errorf("encode watch event: %w", err)
	}
	return json.Marshal(w)
}

// Encode checks a and returns its JSON payload.
func (a Ack) Encode() ([]byte, error) {
	if err := a.check(); err != nil {
		return nil, fmt.Errorf("encode ack: %w", err)
	}
	return json.Marshal(a)
}
