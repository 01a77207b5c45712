package nodeevents_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/nodeevents"
)

// send records what f records on a fresh agent-side recorder of node and
// flushes it through conn, as an agent would.
func send(t *testing.T, conn *nodeConn, r *events.Recorder) {
	t.Helper()
	if _, err := r.Flush(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
}

// only returns the one Event with reason, failing unless there is exactly one.
func only(t *testing.T, e *env, reason string) corev1.Event {
	t.Helper()
	var found []corev1.Event
	for _, ev := range e.events() {
		if ev.Reason == reason {
			found = append(found, ev)
		}
	}
	if len(found) != 1 {
		t.Fatalf("events with reason %s: got %d (%+v), want 1", reason, len(found), found)
	}
	return found[0]
}

func TestSeriesBecomeOneEvent(t *testing.T) {
	e := newEnv(t, nodeevents.Config{})
	e.node("pi-0")
	pod := e.pod("web", "pi-0")
	conn := e.connect("pi-0")
	rec := events.New("pi-0", events.Config{})
	ref := events.PodRef(pod, "app")
	for range 3 {
		rec.Event(ref, events.Warning, "BackOff", "Back-off restarting failed container app")
	}
	send(t, conn, rec)
	waitFor(t, "a BackOff event with count 3", func() bool {
		evs := e.events()
		return len(evs) == 1 && evs[0].Count == 3
	})
	ev := only(t, e, "BackOff")
	if ev.InvolvedObject.UID != pod.UID || ev.InvolvedObject.FieldPath != "spec.containers{app}" || ev.Source.Component != "kubelet" ||
		ev.Source.Host != "pi-0" || ev.Type != corev1.EventTypeWarning || ev.Namespace != "default" {
		t.Errorf("event: got %+v, want about pod web's container app, from kubelet on pi-0", ev)
	}
	rec.Event(ref, events.Warning, "BackOff", "Back-off restarting failed container app")
	send(t, conn, rec)
	waitFor(t, "the count to reach 4", func() bool { return only(t, e, "BackOff").Count == 4 })

	// The agent restarts: its series begins again at 1; the Event goes on.
	again := events.New("pi-0", events.Config{})
	time.Sleep(10 * time.Millisecond)
	again.Event(ref, events.Warning, "BackOff", "Back-off restarting failed container app")
	send(t, conn, again)
	waitFor(t, "the count to reach 5 after the agent restarted", func() bool { return only(t, e, "BackOff").Count == 5 })
	// The ingest counts a write once the store has answered it, which can
	// come after the Event is seen in the store.
	waitFor(t, "the ingest to count its writes", func() bool { return e.ingest.Stats().Updated >= 2 })
	if s := e.ingest.Stats(); s.Created != 1 || s.Updated != 2 {
		t.Errorf("stats: got %+v, want 1 created and 2 updates", s)
	}
}

func TestNodeReportsOnlyItsOwn(t *testing.T) {
	e := newEnv(t, nodeevents.Config{})
	e.node("pi-0")
	e.node("pi-1")
	theirs := e.pod("theirs", "pi-1")
	mine := e.pod("mine", "pi-0")
	conn := e.connect("pi-0")
	rec := events.New("pi-0", events.Config{})
	rec.Event(events.PodRef(theirs, "app"), events.Normal, "Pulling", "Pulling image busybox")
	forged := events.PodRef(mine, "app")
	forged.UID = "not-the-pods-uid"
	rec.Event(forged, events.Normal, "Pulling", "Pulling image busybox")
	rec.Event(events.NodeRef("pi-1"), events.Warning, "Rebooted", "Node pi-1 has been rebooted")
	rec.Event(events.NodeRef("pi-0"), events.Warning, "Rebooted", "Node pi-0 has been rebooted, boot id: x")
	send(t, conn, rec)
	waitFor(t, "the node's own event", func() bool { return len(e.events()) > 0 })
	waitFor(t, "three denials", func() bool { return e.ingest.Stats().Denied == 3 })
	ev := only(t, e, "Rebooted")
	if ev.InvolvedObject.Kind != "Node" || ev.InvolvedObject.Name != "pi-0" || ev.InvolvedObject.UID != "pi-0" || ev.Namespace != "default" {
		t.Errorf("node event: got %+v, want about Node pi-0 (uid pi-0) in default", ev.InvolvedObject)
	}
	if n := len(e.events()); n != 1 {
		t.Errorf("events: got %d, want only pi-0's own", n)
	}

	// A report naming another node in its payload is refused whole.
	payload, err := (&mqtt.EventReport{Node: "pi-1", Dropped: 1}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Publish(context.Background(), mqtt.EventsTopic("pi-0"), 1, payload); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the report to be refused", func() bool { return e.ingest.Stats().Rejected == 1 })
}

func TestWritesPerNodeAreCapped(t *testing.T) {
	e := newEnv(t, nodeevents.Config{WritesPerSecond: 0.001, Burst: 3})
	e.node("pi-0")
	pod := e.pod("web", "pi-0")
	conn := e.connect("pi-0")
	rec := events.New("pi-0", events.Config{})
	for _, reason := range []string{"Pulling", "Pulled", "Created", "Started", "Killing"} {
		rec.Event(events.PodRef(pod, "app"), events.Normal, reason, reason+" app")
	}
	send(t, conn, rec)
	waitFor(t, "two series skipped", func() bool { return e.ingest.Stats().Limited == 2 })
	if n := len(e.events()); n != 3 {
		t.Errorf("events: got %d, want the burst of 3", n)
	}
}

func TestDroppedEventsAreTold(t *testing.T) {
	e := newEnv(t, nodeevents.Config{})
	e.node("pi-0")
	conn := e.connect("pi-0")
	payload, err := (&mqtt.EventReport{Node: "pi-0", Dropped: 7}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Publish(context.Background(), mqtt.EventsTopic("pi-0"), 1, payload); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an EventsDropped event", func() bool { return len(e.events()) == 1 })
	if ev := only(t, e, "EventsDropped"); !strings.Contains(ev.Message, "dropped 7 events") || ev.InvolvedObject.Name != "pi-0" {
		t.Errorf("got %+v, want a Warning on node pi-0 saying 7 were dropped", ev)
	}
}

// A restarted server remembers no series: it finds the Event an earlier
// one wrote and goes on counting on it.
func TestARestartedServerUpdatesTheSameEvent(t *testing.T) {
	e := newEnv(t, nodeevents.Config{})
	e.node("pi-0")
	pod := e.pod("web", "pi-0")
	conn := e.connect("pi-0")
	restart := func() {
		e.ingest.Stop()
		bus := e.broker.Bus()
		t.Cleanup(func() { _ = bus.Close() })
		e.startIngest(nodeevents.Config{Bus: bus, Client: e.client, Events: nodeevents.RegistryEvents(e.reg), Logger: quiet})
	}
	rec := events.New("pi-0", events.Config{})
	ref := events.PodRef(pod, "app")
	backOff := func(r *events.Recorder) {
		r.Event(ref, events.Warning, "BackOff", "Back-off restarting failed container app")
	}
	backOff(rec)
	backOff(rec)
	send(t, conn, rec)
	waitFor(t, "count 2", func() bool { evs := e.events(); return len(evs) == 1 && evs[0].Count == 2 })

	restart()
	backOff(rec)
	send(t, conn, rec)
	waitFor(t, "count 3 on the same Event", func() bool { return only(t, e, "BackOff").Count == 3 })

	restart() // and the agent too, after the last write
	again := events.New("pi-0", events.Config{})
	time.Sleep(1100 * time.Millisecond) // an Event's timestamps keep whole seconds
	backOff(again)
	send(t, conn, again)
	waitFor(t, "count 4 on the same Event", func() bool { return only(t, e, "BackOff").Count == 4 })
}
