package events

import (
	"fmt"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// seriesKey tells identical events apart from others.
type seriesKey struct {
	uid, fieldPath, typ, reason, message string
}

// similarKey groups the events that differ only in their message.
type similarKey struct{ uid, fieldPath, typ, reason string }

// series is one aggregated event: its latest state, and whether that
// state still has to be sent.
type series struct {
	key     seriesKey
	ev      mqtt.NodeEvent
	pending bool
	sentAt  time.Time
}

// similarState remembers the distinct messages of a similarKey within the
// window that started at since.
type similarState struct {
	since    time.Time
	messages map[string]bool
}

// combinedPrefix starts the message of a combined series, as the kubelet's.
const combinedPrefix = "(combined from similar events): "

// Eventf records an event about obj: eventType is "Normal" or "Warning",
// reason one CamelCase word.
func (r *Recorder) Eventf(obj mqtt.EventObject, eventType, reason, format string, args ...any) {
	r.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

// Event records an event about obj.
func (r *Recorder) Event(obj mqtt.EventObject, eventType, reason, message string) {
	if len(message) > mqtt.MaxEventMessageBytes {
		message = message[:mqtt.MaxEventMessageBytes-3] + "..."
	}
	now := r.cfg.Clock.Now()
	r.mu.Lock()
	r.stats.Recorded++
	message = r.combine(obj, eventType, reason, message, now)
	key := seriesKey{id(obj), obj.FieldPath, eventType, reason, message}
	s := r.series[key]
	if s == nil {
		s = &series{key: key, ev: mqtt.NodeEvent{Object: obj, Type: eventType, Reason: reason, Message: message,
			FirstTimestamp: now}}
		r.remember(s)
	}
	s.ev.Count++
	s.ev.LastTimestamp = now
	queued := r.enqueue(s)
	r.mu.Unlock()
	if queued {
		r.poke()
	}
}

// combine returns the message to record: the event's own, or a combined
// one once its object, type and reason gave SimilarLimit different
// messages within SimilarWindow.
func (r *Recorder) combine(obj mqtt.EventObject, eventType, reason, message string, now time.Time) string {
	k := similarKey{id(obj), obj.FieldPath, eventType, reason}
	st := r.similar[k]
	if st == nil || now.Sub(st.since) > r.cfg.SimilarWindow {
		st = &similarState{since: now, messages: map[string]bool{}}
		r.similar[k] = st
	}
	if len(st.messages) < r.cfg.SimilarLimit {
		st.messages[message] = true
		return message
	}
	if st.messages[message] {
		return message
	}
	return combinedPrefix + reason
}

// enqueue marks s to be sent; false when the buffer is full and s is new
// to it (dropped, counted).
func (r *Recorder) enqueue(s *series) bool {
	if s.pending {
		return true
	}
	if len(r.pending) >= r.cfg.MaxPending {
		r.dropped++
		r.stats.Dropped++
		return false
	}
	s.pending = true
	r.pending = append(r.pending, s)
	return true
}

// remember adds s, forgetting the least recently changed series (and the
// similar-message windows) once MaxSeries are held.
func (r *Recorder) remember(s *series) {
	if len(r.series) >= r.cfg.MaxSeries {
		var oldest *series
		for _, o := range r.series {
			if !o.pending && (oldest == nil || o.ev.LastTimestamp.Before(oldest.ev.LastTimestamp)) {
				oldest = o
			}
		}
		if oldest != nil {
			delete(r.series, oldest.key)
		}
		if len(r.similar) >= r.cfg.MaxSeries {
			clear(r.similar)
		}
	}
	r.series[s.key] = s
}

// id names the object of an event for aggregation and rate limiting.
func id(o mqtt.EventObject) string {
	if o.UID != "" {
		return o.UID
	}
	return o.Kind + "/" + o.Name
}
