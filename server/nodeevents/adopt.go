package nodeevents

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/registry"
)

// EventLister lists the Events of a namespace matching a field selector
// (the registry's List, answered from the shared cache).
type EventLister func(ctx context.Context, namespace string, sel fields.Selector) ([]*corev1.Event, error)

// adopt finds the Event an earlier server (before a restart, or another
// server of an HA cluster the agent was connected to) wrote for the series,
// so that it is updated instead of written twice; nil when there is none.
func (in *Ingest) adopt(ctx context.Context, node, namespace string, ev *mqtt.NodeEvent) (*written, error) {
	if in.cfg.Events == nil {
		return nil, nil
	}
	sel := fields.SelectorFromSet(fields.Set{"involvedObject.uid": ev.Object.UID,
		"involvedObject.fieldPath": ev.Object.FieldPath, "reason": ev.Reason, "type": ev.Type, "source": Source})
	list, err := in.cfg.Events(ctx, namespace, sel)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	found := latest(list, node, ev.Message)
	if found == nil {
		return nil, nil
	}
	// An Event's timestamps keep whole seconds.
	w := &written{ev: found.DeepCopy(), seriesFirst: ev.FirstTimestamp}
	first := ev.FirstTimestamp.Truncate(time.Second)
	switch {
	case found.FirstTimestamp.Time.Equal(first):
		// written from this very series: the agent's count is the Event's
	case found.LastTimestamp.Time.Before(first):
		w.base = found.Count // the series began after the Event's last write
	}
	// Otherwise the series overlaps an earlier one's writes: counting on
	// from 0 undercounts until the agent's count passes the Event's, which
	// update never lowers.
	return w, nil
}

// latest is the newest of list from node with message, or nil.
func latest(list []*corev1.Event, node, message string) *corev1.Event {
	var found *corev1.Event
	for _, e := range list {
		if e.Message == message && e.Source.Host == node && (found == nil || e.LastTimestamp.After(found.LastTimestamp.Time)) {
			found = e
		}
	}
	return found
}

// RegistryEvents is the EventLister of a registry.
func RegistryEvents(reg *registry.Registry) EventLister {
	return func(ctx context.Context, namespace string, sel fields.Selector) ([]*corev1.Event, error) {
		list, err := reg.List(ctx, eventsResource, namespace, registry.ListOptions{Fields: sel})
		if err != nil {
			return nil, err
		}
		out := make([]*corev1.Event, 0, len(list.Items))
		for _, o := range list.Items {
			if e, ok := o.(*corev1.Event); ok {
				out = append(out, e)
			}
		}
		return out, nil
	}
}
