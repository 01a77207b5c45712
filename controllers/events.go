package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
)

// Recorder writes core/v1 Events about objects, as `kubectl describe` and
// `kubectl get events` show them. Recording never blocks a controller: events
// go through a bounded buffer (dropped, with a debug log, when it is full)
// a repeat of the same event within the aggregation window raises the
// count of the one already written instead of writing another, and past a
// burst of Events about one object the rest are dropped (eventspam.go).
type Recorder struct {
	client    Client
	component string
	log       *slog.Logger
	now       func() time.Time
	ch        chan *corev1.Event

	spam *spamFilter

	mu     sync.Mutex
	recent map[string]*corev1.Event // aggregation key -> last written
}

// recentMax bounds the aggregation memory; past it, it starts afresh.
const recentMax = 4096

// NewRecorder makes a recorder reporting as component (for example
// "deployment-controller"). Start must run for events to be written.
func NewRecorder(c Client, component string, log *slog.Logger) *Recorder {
	return &Recorder{client: c, component: component, log: log, now: time.Now,
		ch: make(chan *corev1.Event, 1024), spam: newSpamFilter(), recent: map[string]*corev1.Event{}}
}

// Eventf records an event about obj. eventType is corev1.EventTypeNormal or
// corev1.EventTypeWarning; reason is one CamelCase word.
func (r *Recorder) Eventf(obj api.Object, eventType, reason, format string, args ...any) {
	ev, err := api.NewEvent(obj, r.component, eventType, reason, fmt.Sprintf(format, args...), r.now())
	if err != nil {
		r.log.Debug("event not recorded", "reason", reason, "err", err)
		return
	}
	if !r.spam.allow(ev, ev.LastTimestamp.Time) {
		return // eventspam.go: upstream drops these too
	}
	select {
	case r.ch <- ev:
	default:
		r.log.Debug("event buffer full; event dropped", "object", KeyOf(obj), "reason", reason)
	}
}

// Run writes events until ctx ends.
func (r *Recorder) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-r.ch:
			if err := r.write(ctx, ev); err != nil && ctx.Err() == nil {
				r.log.Debug("event not written", "name", ev.Name, "reason", ev.Reason, "err", err)
			}
		}
	}
}

// Start runs Run on a goroutine of its own, for a caller that need not
// wait for it (controllers.Run runs Run itself and waits).
func (r *Recorder) Start(ctx context.Context) { go r.Run(ctx) }

// aggregateWindow is how long a repeat counts on an earlier event.
const aggregateWindow = 10 * time.Minute

func (r *Recorder) write(ctx context.Context, ev *corev1.Event) error {
	key := string(ev.InvolvedObject.UID) + "\x00" + ev.Type + "\x00" + ev.Reason + "\x00" + ev.Message
	r.mu.Lock()
	prev := r.recent[key]
	r.mu.Unlock()
	if prev != nil && ev.LastTimestamp.Sub(prev.LastTimestamp.Time) < aggregateWindow {
		upd := prev.DeepCopy()
		upd.Count++
		upd.LastTimestamp = ev.LastTimestamp
		upd.ResourceVersion = ""
		out, err := r.client.Update(ctx, upd)
		if err == nil {
			r.remember(key, out.(*corev1.Event))
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
	}
	out, err := r.client.Create(ctx, ev)
	if err != nil {
		return err
	}
	r.remember(key, out.(*corev1.Event))
	return nil
}

func (r *Recorder) remember(key string, ev *corev1.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.recent) >= recentMax {
		clear(r.recent)
	}
	r.recent[key] = ev
}
