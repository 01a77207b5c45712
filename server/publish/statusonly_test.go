package publish

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// podStatus writes what a node's status report makes of the pod
// writer.pod wrote: the same pod with a status and the status writer's
// managedFields entry.
func (w writer) podStatus(name, node, configMap, label string, ready bool) int64 {
	pod := podObject(name, node, configMap, "", label)
	cond := corev1.ConditionFalse
	if ready {
		cond = corev1.ConditionTrue
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}}}
	pod.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "bramble-node", Operation: metav1.ManagedFieldsOperationUpdate,
		Subresource: "status", Time: &metav1.Time{Time: time.Now()}}}
	return w.put("pods", name, pod)
}

func TestNodesOwnStatusWritesAreNotEchoed(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	startPublisher(t, store, bus, Config{StallTimeout: 20 * time.Millisecond})
	sent := w.pod("web", "pi-1", "", "", "a")
	waitFor(t, "the pod's event", func() bool { return len(bus.events(t, "pi-1")) == 1 })
	bus.ack(t, "pi-1", mqtt.AckApplied, sent)

	w.podStatus("web", "pi-1", "", "a", false)
	w.podStatus("web", "pi-1", "", "a", true)
	w.pod("other", "pi-2", "", "", "a") // processed after both status writes
	waitFor(t, "pi-2's event", func() bool { return len(bus.events(t, "pi-2")) == 1 })
	// Watch topics go out on their own goroutine, in no order with the
	// nodes' streams: wait for them rather than read them once.
	waitFor(t, "3 messages on the pod's watch topic (watchers see status writes)", func() bool {
		return bus.topics()[mqtt.WatchTopic("pods", "default", "web")] == 3
	})
	bus.ack(t, "pi-1", mqtt.AckHello, sent) // the node holds what it was sent
	time.Sleep(200 * time.Millisecond)      // ten stall checks and the hello
	if evs := bus.events(t, "pi-1"); len(evs) != 1 {
		t.Fatalf("pi-1 events after its own status writes: got %d (last prev %d rev %d), want 1: no echo, no catch-up",
			len(evs), evs[len(evs)-1].Prev, evs[len(evs)-1].Rev)
	}

	next := w.pod("web", "pi-1", "", "", "b") // a change the node needs
	waitFor(t, "the label change", func() bool { return len(bus.events(t, "pi-1")) == 2 })
	ev := bus.events(t, "pi-1")[1]
	if ev.Prev != sent || ev.Rev != next {
		t.Errorf("event after the skipped status writes: got prev %d rev %d, want prev %d (the last event sent) rev %d", ev.Prev, ev.Rev, sent, next)
	}
	m, _ := replay(t, bus.events(t, "pi-1"), 0) // fails on a gap
	if got, want := m.Versions(), storeView(t, store, "pi-1"); !maps.Equal(got, want) {
		t.Errorf("view: got %v, want %v", got, want)
	}
}

func TestCatchupLeavesOutStatusOnlyChanges(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	startPublisher(t, store, bus, Config{})
	w.configMap("conf", "1")
	w.pod("quiet", "pi-1", "conf", "", "a")
	w.pod("busy", "pi-1", "", "", "a")
	held := caughtUp(t, bus, w, "pi-1")
	heldView, _ := replay(t, bus.events(t, "pi-1"), 0)
	quietRV := heldView.Versions()[mqtt.ObjectRef{Resource: "pods", Namespace: "default", Name: "quiet"}]
	sent := len(bus.events(t, "pi-1"))

	w.podStatus("quiet", "pi-1", "conf", "a", true) // only its status changes
	w.podStatus("busy", "pi-1", "", "a", true)
	w.pod("busy", "pi-1", "", "", "b") // and then its labels
	w.podStatus("busy", "pi-1", "", "b", false)
	w.pod("marker", "pi-2", "", "", "a") // processed after all of them
	waitFor(t, "pi-2's event", func() bool { return len(bus.events(t, "pi-2")) == 1 })
	if evs := bus.events(t, "pi-1"); len(evs) != sent+1 || evs[sent].Prev != held {
		t.Fatalf("pi-1 events: got %d, want %d (the label change, chained from %d)", len(evs), sent+1, held)
	}
	bus.ack(t, "pi-1", mqtt.AckHello, held) // as if that one was lost
	var catchup *mqtt.Event
	waitFor(t, "a catch-up", func() bool {
		evs := bus.events(t, "pi-1")
		catchup = evs[len(evs)-1]
		return len(evs) == sent+2 && catchup.Prev == held
	})
	for _, c := range catchup.Changes {
		if c.Name != "busy" {
			t.Errorf("catch-up carries %s %s; want only pod busy (quiet and conf only had status writes or none)", c.Type, c.ObjectRef)
		}
	}
	if err := heldView.Apply(context.Background(), *catchup); err != nil {
		t.Fatal(err)
	}
	want := storeView(t, store, "pi-1")
	want[mqtt.ObjectRef{Resource: "pods", Namespace: "default", Name: "quiet"}] = quietRV
	if got := heldView.Versions(); !maps.Equal(got, want) {
		t.Errorf("view after the catch-up: got %v, want %v (quiet as it was sent)", got, want)
	}
}

func TestStatusOnly(t *testing.T) {
	base := podObject("web", "pi-1", "conf", "", "a")
	edit := func(f func(p *corev1.Pod)) *datastore.KeyValue {
		p := base.DeepCopy()
		f(p)
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return &datastore.KeyValue{Value: b}
	}
	prev := edit(func(*corev1.Pod) {})
	now := metav1.Now()
	cases := []struct {
		name string
		cur  *datastore.KeyValue
		want bool
	}{
		{"status", edit(func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }), true},
		{"status and its managedFields", edit(func(p *corev1.Pod) {
			p.Status.PodIP = "10.42.0.5"
			p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "bramble-node", Subresource: "status"}}
		}), true},
		{"resourceVersion", edit(func(p *corev1.Pod) { p.ResourceVersion = "9" }), true},
		{"labels", edit(func(p *corev1.Pod) { p.Labels["l"] = "b" }), false},
		{"deletionTimestamp", edit(func(p *corev1.Pod) { p.DeletionTimestamp = &now }), false},
		{"annotations", edit(func(p *corev1.Pod) { p.Annotations = map[string]string{"x": "y"} }), false},
		{"spec", edit(func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx" }), false},
		{"nothing", edit(func(*corev1.Pod) {}), false},
		{"not JSON", &datastore.KeyValue{Value: []byte("{")}, false},
		{"metadata not an object", &datastore.KeyValue{Value: []byte(`{"metadata":[1]}`)}, false},
		{"absent", nil, false},
	}
	for _, c := range cases {
		if got := statusOnly(prev, c.cur); got != c.want {
			t.Errorf("%s: statusOnly got %v, want %v", c.name, got, c.want)
		}
	}
	if statusOnly(nil, prev) {
		t.Error("statusOnly of a create: got true, want false")
	}
}
