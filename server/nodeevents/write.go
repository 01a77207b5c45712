package nodeevents

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
)

// Source is the component the Events name, as the kubelet's do (`kubectl
// describe` prints it under From; tools select on source=kubelet).
const Source = "kubelet"

var (
	podsResource   = api.MustLookup("", "v1", "pods")
	nodesResource  = api.MustLookup("", "v1", "nodes")
	eventsResource = api.MustLookup("", "v1", "events")
)

// errDenied: a node reported about an object that is not its own.
var errDenied = errors.New("not this node's")

// seriesKey names one agent series on the server.
type seriesKey struct {
	node, uid, fieldPath, typ, reason, message string
}

// written is the Event a series was last written as. An agent that
// restarts begins its series again from count 1 with a new
// firstTimestamp; base carries the count written before that.
type written struct {
	ev          *corev1.Event
	seriesFirst time.Time
	base        int32
	touched     time.Time
}

// write creates or updates the Event of one series.
func (in *Ingest) write(ctx context.Context, node string, ev *mqtt.NodeEvent) error {
	key := seriesKey{node, ev.Object.UID, ev.Object.FieldPath, ev.Type, ev.Reason, ev.Message}
	in.mu.Lock()
	w := in.series[key]
	in.mu.Unlock()
	if w != nil {
		return in.update(ctx, key, w, ev)
	}
	obj, err := in.authorize(ctx, node, &ev.Object)
	if err != nil {
		if errors.Is(err, errDenied) {
			in.stats.denied.Add(1)
			in.log.Warn("a node reported an event about an object not its own; ignored", "node", node,
				"object", ev.Object.Kind+" "+ev.Object.Namespace+"/"+ev.Object.Name, "err", err)
			return nil
		}
		in.stats.failed.Add(1)
		return err
	}
	return in.adoptOrCreate(ctx, key, obj, ev)
}

// adoptOrCreate updates the Event an earlier server wrote for the series,
// or creates one.
func (in *Ingest) adoptOrCreate(ctx context.Context, key seriesKey, obj api.Object, ev *mqtt.NodeEvent) error {
	ns := obj.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	w, err := in.adopt(ctx, key.node, ns, ev)
	switch {
	case err != nil:
		in.stats.failed.Add(1)
		return err
	case w != nil:
		return in.update(ctx, key, w, ev)
	}
	return in.create(ctx, key, obj, key.node, ev, 0)
}

// authorize returns the object ev is about when it is the reporting node
// itself or a pod bound to it (the same pod: UIDs match).
func (in *Ingest) authorize(ctx context.Context, node string, o *mqtt.EventObject) (api.Object, error) {
	switch o.Kind {
	case mqtt.EventKindNode:
		if o.Name != node {
			return nil, fmt.Errorf("%w: node %s reported about node %s", errDenied, node, o.Name)
		}
		obj, err := in.cfg.Client.Get(ctx, nodesResource, "", node)
		return obj, notFoundDenied(err)
	case mqtt.EventKindPod:
		obj, err := in.cfg.Client.Get(ctx, podsResource, o.Namespace, o.Name)
		if err != nil {
			return nil, notFoundDenied(err)
		}
		pod := obj.(*corev1.Pod)
		if string(pod.UID) != o.UID || pod.Spec.NodeName != node {
			return nil, fmt.Errorf("%w: pod %s/%s (uid %s) is bound to %q", errDenied, o.Namespace, o.Name, pod.UID, pod.Spec.NodeName)
		}
		return pod, nil
	}
	return nil, fmt.Errorf("%w: kind %s", errDenied, o.Kind)
}

// notFoundDenied turns a missing object into a denial: nothing to report on.
func notFoundDenied(err error) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%w: %w", errDenied, err)
	}
	return err
}

// create writes a new Event for the series, count base + the agent's.
func (in *Ingest) create(ctx context.Context, key seriesKey, obj api.Object, node string, ev *mqtt.NodeEvent, base int32) error {
	e, err := api.NewEvent(obj, Source, ev.Type, ev.Reason, ev.Message, ev.FirstTimestamp)
	if err != nil {
		return err
	}
	e.InvolvedObject.FieldPath = ev.Object.FieldPath
	if ev.Object.Kind == mqtt.EventKindNode {
		e.InvolvedObject.UID = types.UID(node) // as the kubelet and kubectl describe node have it
	}
	e.Source.Host, e.ReportingInstance = node, node
	e.Count, e.LastTimestamp = base+ev.Count, metav1.NewTime(ev.LastTimestamp)
	out, err := in.cfg.Client.Create(ctx, e)
	if err != nil {
		in.stats.failed.Add(1)
		return fmt.Errorf("create event: %w", err)
	}
	in.stats.created.Add(1)
	in.remember(key, &written{ev: out.(*corev1.Event), seriesFirst: ev.FirstTimestamp, base: base})
	return nil
}

// update raises the count and lastTimestamp of the series' Event; a
// repeated report changes nothing. An Event deleted meanwhile (expired,
// or by a user) is created anew.
func (in *Ingest) update(ctx context.Context, key seriesKey, w *written, ev *mqtt.NodeEvent) error {
	base := w.base
	if !ev.FirstTimestamp.Equal(w.seriesFirst) {
		base = w.ev.Count // the agent restarted its series
	}
	count := max(base+ev.Count, w.ev.Count) // an Event's count never goes down
	if count == w.ev.Count && !ev.LastTimestamp.After(w.ev.LastTimestamp.Time) {
		return nil
	}
	out, err := in.updateStored(ctx, w.ev, count, ev.LastTimestamp)
	switch {
	case apierrors.IsNotFound(err): // expired or deleted: a new Event
		in.forget(key)
		obj, aerr := in.authorize(ctx, key.node, &ev.Object)
		if aerr != nil {
			return aerr
		}
		return in.create(ctx, key, obj, key.node, ev, 0)
	case err != nil:
		in.forget(key)
		in.stats.failed.Add(1)
		return fmt.Errorf("update event %s/%s: %w", w.ev.Namespace, w.ev.Name, err)
	}
	in.stats.updated.Add(1)
	in.remember(key, &written{ev: out, seriesFirst: ev.FirstTimestamp, base: base})
	return nil
}

// updateStored writes count and last on the Event; on a conflict (another
// server wrote it meanwhile) once more on what is stored, never lowering
// its count.
func (in *Ingest) updateStored(ctx context.Context, old *corev1.Event, count int32, last time.Time) (*corev1.Event, error) {
	e := old.DeepCopy()
	e.Count, e.LastTimestamp = count, metav1.NewTime(last)
	out, err := in.cfg.Client.Update(ctx, e)
	if apierrors.IsConflict(err) {
		var cur api.Object
		if cur, err = in.cfg.Client.Get(ctx, eventsResource, e.Namespace, e.Name); err != nil {
			return nil, err
		}
		e = cur.(*corev1.Event).DeepCopy()
		e.Count, e.LastTimestamp = max(count, e.Count), metav1.NewTime(last)
		out, err = in.cfg.Client.Update(ctx, e)
	}
	if err != nil {
		return nil, err
	}
	return out.(*corev1.Event), nil
}

// droppedEvent tells, on the Node, that its agent dropped events.
func (in *Ingest) droppedEvent(ctx context.Context, node string, n uint64) {
	now := in.cfg.Now()
	ev := &mqtt.NodeEvent{Object: mqtt.EventObject{Kind: mqtt.EventKindNode, Name: node, UID: node},
		Type: corev1.EventTypeWarning, Reason: "EventsDropped", Count: 1, FirstTimestamp: now, LastTimestamp: now,
		Message: fmt.Sprintf("the agent dropped %d events it could not send while it was cut off from the server", n)}
	if err := in.write(ctx, node, ev); err != nil && ctx.Err() == nil {
		in.log.Debug("dropped-events event not written", "node", node, "err", err)
	}
}
