package api

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxEventMessage is how much of a message an Event keeps; the rest is
// cut and marked "...".
const MaxEventMessage = 1024

// eventSeq tells apart the names of Events made within one nanosecond.
var eventSeq atomic.Uint64

// NewEvent is the core/v1 Event component reports about obj, as `kubectl
// describe` and `kubectl get events` show it: in obj's namespace (default
// for a cluster-scoped obj), named after obj and now, seen once at now.
// eventType is corev1.EventTypeNormal or EventTypeWarning; reason is one
// CamelCase word. Every in-process writer of Events builds them here.
func NewEvent(obj Object, component, eventType, reason, message string, now time.Time) (*corev1.Event, error) {
	kinds, _, err := Scheme().ObjectKinds(obj)
	if err != nil {
		return nil, fmt.Errorf("kind of %T: %w", obj, err)
	}
	ns := obj.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	name := obj.GetName()
	if len(name) > 200 {
		name = name[:200]
	}
	name += "." + strconv.FormatInt(now.UnixNano(), 16) + strconv.FormatUint(eventSeq.Add(1)%1000, 10)
	if len(message) > MaxEventMessage {
		message = message[:MaxEventMessage-3] + "..."
	}
	at := metav1.NewTime(now)
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: kinds[0].Kind, APIVersion: kinds[0].GroupVersion().String(),
			Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion()},
		Reason: reason, Message: message, Type: eventType, Count: 1,
		FirstTimestamp: at, LastTimestamp: at,
		Source:              corev1.EventSource{Component: component},
		ReportingController: component, ReportingInstance: component,
	}, nil
}
