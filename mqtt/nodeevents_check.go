package mqtt

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Limits of an events report.
const (
	// MaxEventsBytes bounds one report's payload.
	MaxEventsBytes = 512 << 10
	// MaxEventsBatch is how many series one report may carry.
	MaxEventsBatch = 256
	// MaxEventMessageBytes is the longest message an agent sends (the API
	// keeps 1,024 bytes of an Event's message: api.MaxEventMessage).
	MaxEventMessageBytes = 1024
	maxReasonBytes       = 128
	maxFieldPathBytes    = 256
)

// Events' times must lie in these years: anything else is a broken clock
// or a forged report, and JSON cannot carry years past 9999 anyway.
var (
	minEventTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxEventTime = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
)

func (r *EventReport) check() error {
	if err := checkNodeName(r.Node); err != nil {
		return err
	}
	if len(r.Events) > MaxEventsBatch {
		return fmt.Errorf("events: got %d, want at most %d", len(r.Events), MaxEventsBatch)
	}
	if len(r.Events) == 0 && r.Dropped == 0 {
		return errors.New("events: empty, and nothing dropped")
	}
	for i := range r.Events {
		if err := r.Events[i].check(); err != nil {
			return fmt.Errorf("events[%d].%w", i, err)
		}
	}
	return nil
}

func (e *NodeEvent) check() error {
	if err := e.Object.check(); err != nil {
		return fmt.Errorf("object.%w", err)
	}
	switch {
	case e.Type != "Normal" && e.Type != "Warning":
		return fmt.Errorf("type: got %q, want Normal or Warning", e.Type)
	case !camelWord(e.Reason):
		return fmt.Errorf("reason: got %q, want one word of letters and digits starting with a capital, at most %d bytes", e.Reason, maxReasonBytes)
	case len(e.Message) > MaxEventMessageBytes:
		return fmt.Errorf("message: %d bytes, want at most %d", len(e.Message), MaxEventMessageBytes)
	case e.Count < 1:
		return fmt.Errorf("count: got %d, want >= 1", e.Count)
	case e.FirstTimestamp.Before(minEventTime) || e.FirstTimestamp.After(maxEventTime):
		return fmt.Errorf("firstTimestamp: got %s, want a time in the years 2000 to 3000", e.FirstTimestamp.Format(time.RFC3339))
	case e.LastTimestamp.Before(e.FirstTimestamp) || e.LastTimestamp.After(maxEventTime):
		return fmt.Errorf("lastTimestamp: got %s, want from firstTimestamp (%s) to the year 3000",
			e.LastTimestamp.Format(time.RFC3339), e.FirstTimestamp.Format(time.RFC3339))
	}
	return nil
}

func (o *EventObject) check() error {
	switch o.Kind {
	case EventKindPod:
		if msgs := validation.IsDNS1123Label(o.Namespace); len(msgs) > 0 {
			return fmt.Errorf("namespace: %q: %s", o.Namespace, strings.Join(msgs, "; "))
		}
		if o.UID == "" || len(o.UID) > 128 {
			return fmt.Errorf("uid: got %d bytes, want 1 to 128", len(o.UID))
		}
	case EventKindNode:
		if o.Namespace != "" {
			return fmt.Errorf("namespace: got %q, want none for a Node", o.Namespace)
		}
		if len(o.UID) > 128 {
			return fmt.Errorf("uid: got %d bytes, want at most 128", len(o.UID))
		}
	default:
		return fmt.Errorf("kind: got %q, want Pod or Node", o.Kind)
	}
	if msgs := validation.IsDNS1123Subdomain(o.Name); len(msgs) > 0 {
		return fmt.Errorf("name: %q: %s", o.Name, strings.Join(msgs, "; "))
	}
	if len(o.FieldPath) > maxFieldPathBytes {
		return fmt.Errorf("fieldPath: %d bytes, want at most %d", len(o.FieldPath), maxFieldPathBytes)
	}
	return nil
}

// camelWord accepts what the API shows as an Event's reason: a capital
// letter, then letters and digits.
func camelWord(s string) bool {
	if s == "" || len(s) > maxReasonBytes || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
