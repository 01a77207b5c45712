package gc

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEventsAreNotCollected: as upstream's collector, this one ignores
// Events, so that nothing in the process follows them and the shared cache
// leaves them undecoded until read: an Event owned by a deleted object
// stays, while a ConfigMap owned by it goes.
func TestEventsAreNotCollected(t *testing.T) {
	h := start(t, true)
	rs := h.createRS("web")
	owner := ownerRef(replicaSetsRes, rs, true)
	h.create(&corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web.scaled", Namespace: "default", OwnerReferences: []metav1.OwnerReference{owner}},
		InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Name: "web", Namespace: "default", UID: rs.UID},
		Reason:         "Scaled", Message: "scaled web", Type: corev1.EventTypeNormal, Source: corev1.EventSource{Component: "test"},
	})
	h.delete(replicaSetsRes, "default", "web", metav1.DeletePropagationBackground)
	// A dependent created after the owner is gone is collected on sight;
	// by then the Event would have been, had the collector followed it.
	h.createCM("default", "web-config", owner)
	h.waitGone(configMapsRes, "default", "web-config")
	h.mustGet(eventsResource, "default", "web.scaled")
}
