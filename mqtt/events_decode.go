package mqtt

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	kjson "sigs.k8s.io/json"
)

// Size limits of the payloads a decoder accepts. A desired-topic Event may
// carry a node's whole catch-up, so it gets room; an Ack is tiny.
const (
	MaxEventBytes = 16 << 20
	MaxAckBytes   = 1 << 10
)

// DecodeEvent decodes and checks a desired-topic payload. Unknown,
// duplicate or differently cased fields are errors, and every error names
// the field that is wrong.
func DecodeEvent(data []byte) (*Event, error) {
	var e Event
	if err := decodeStrict(data, MaxEventBytes, &e); err != nil {
		return nil, fmt.Errorf("decode event: %w", err)
	}
	if err := e.check(); err != nil {
		return nil, fmt.Errorf("decode event: %w", err)
	}
	return &e, nil
}

// DecodeWatchEvent decodes and checks a watch-topic payload.
func DecodeWatchEvent(data []byte) (*WatchEvent, error) {
	var w WatchEvent
	if err := decodeStrict(data, MaxEventBytes, &w); err != nil {
		return nil, fmt.Errorf("decode watch event: %w", err)
	}
	if err := w.check(); err != nil {
		return nil, fmt.Errorf("decode watch event: %w", err)
	}
	return &w, nil
}

// DecodeAck decodes and checks an ack-topic payload.
func DecodeAck(data []byte) (Ack, error) {
	var a Ack
	if err := decodeStrict(data, MaxAckBytes, &a); err != nil {
		return Ack{}, fmt.Errorf("decode ack: %w", err)
	}
	if err := a.check(); err != nil {
		return Ack{}, fmt.Errorf("decode ack: %w", err)
	}
	return a, nil
}

// decodeStrict unmarshals one JSON object into v, case-sensitively,
// refusing unknown and duplicate fields.
func decodeStrict(data []byte, limit int, v any) error {
	if len(data) > limit {
		return fmt.Errorf("payload is %d bytes, limit %d", len(data), limit)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("payload is not a JSON object")
	}
	strictErrs, err := kjson.UnmarshalStrict(trimmed, v)
	if err != nil {
		return fmt.Errorf("malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

func (e *Event) check() error {
	if e.Rev <= 0 {
		return fmt.Errorf("rev: got %d, want > 0", e.Rev)
	}
	if e.Prev < 0 || e.Prev >= e.Rev {
		return fmt.Errorf("prev: got %d, want 0 <= prev < rev (%d)", e.Prev, e.Rev)
	}
	switch e.Type {
	case EventRelist:
		if len(e.Changes) > 0 {
			return fmt.Errorf("changes: got %d for RELIST, want none", len(e.Changes))
		}
	case EventChanges:
		for i := range e.Changes {
			if err := e.Changes[i].check(); err != nil {
				return fmt.Errorf("changes[%d].%w", i, err)
			}
		}
	default:
		return fmt.Errorf("type: got %q, want %s or %s", e.Type, EventChanges, EventRelist)
	}
	return nil
}

func (c *Change) check() error {
	if err := checkChangeType(c.Type); err != nil {
		return err
	}
	if err := c.ObjectRef.check(); err != nil {
		return err
	}
	if len(c.Object) == 0 || string(c.Object) == "null" {
		if c.Type != Deleted {
			return fmt.Errorf("object: missing, want the object for %s", c.Type)
		}
		return nil
	}
	return checkObject(c.Object, c.ObjectRef)
}

func (w *WatchEvent) check() error {
	if err := w.checkHead(); err != nil {
		return err
	}
	return checkObject(w.Object, w.ObjectRef)
}

func (a Ack) check() error {
	switch {
	case a.Type != AckApplied && a.Type != AckHello:
		return fmt.Errorf("type: got %q, want %s or %s", a.Type, AckApplied, AckHello)
	case a.Type == AckApplied && a.Rev <= 0:
		return fmt.Errorf("rev: got %d, want > 0 for %s", a.Rev, AckApplied)
	case a.Rev < 0:
		return fmt.Errorf("rev: got %d, want >= 0", a.Rev)
	}
	return nil
}

func checkChangeType(t ChangeType) error {
	if t != Added && t != Modified && t != Deleted {
		return fmt.Errorf("type: got %q, want %s, %s or %s", t, Added, Modified, Deleted)
	}
	return nil
}

// objectMeta is the part of an object the decoders compare with the
// envelope.
type objectMeta struct {
	Metadata *struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// checkObject makes sure obj is a JSON object naming the same object as
// ref, with a resourceVersion.
func checkObject(obj []byte, ref ObjectRef) error {
	var m objectMeta
	if err := kjson.UnmarshalCaseSensitivePreserveInts(obj, &m); err != nil {
		return fmt.Errorf("object: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	switch {
	case m.Metadata == nil:
		return errors.New("object.metadata: missing")
	case m.Metadata.Name != ref.Name:
		return fmt.Errorf("object.metadata.name: got %q, want %q (the envelope's name)", m.Metadata.Name, ref.Name)
	case m.Metadata.Namespace != ref.Namespace:
		return fmt.Errorf("object.metadata.namespace: got %q, want %q (the envelope's namespace)", m.Metadata.Namespace, ref.Namespace)
	}
	if rv, err := strconv.ParseInt(m.Metadata.ResourceVersion, 10, 64); err != nil || rv <= 0 {
		return fmt.Errorf("object.metadata.resourceVersion: got %q, want a positive integer", m.Metadata.ResourceVersion)
	}
	return nil
}
