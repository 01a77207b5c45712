package publish

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/storetest"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// caughtUp waits until replaying node's published Events from revision 0
// gives the store's view of the node, and returns the revision reached.
func caughtUp(t testing.TB, bus *recordingBus, w writer, node string) int64 {
	t.Helper()
	var last int64
	waitFor(t, node+" to receive its view", func() bool {
		m, rev := replay(t, bus.events(t, node), chainStart(bus.events(t, node)))
		last = rev
		return maps.Equal(m.Versions(), storeView(t, w.store, node))
	})
	return last
}

// chainStart is where a node's chain begins: the Prev of its first Event
// (the revision the publisher started at, when the node held nothing).
func chainStart(evs []*mqtt.Event) int64 {
	if len(evs) == 0 {
		return 0
	}
	return evs[0].Prev
}

func TestPublisherChainsEachNodesStream(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	w.configMap("conf", "1")
	startPublisher(t, store, bus, Config{})
	w.pod("web", "pi-1", "conf", "pull", "a")
	w.secret("pull", "s1")
	w.pod("db", "pi-2", "", "", "a")
	w.configMap("conf", "2")
	w.pod("web", "pi-1", "conf", "pull", "b")
	w.configMap("unrelated", "x")
	caughtUp(t, bus, w, "pi-1")
	caughtUp(t, bus, w, "pi-2")

	evs := bus.events(t, "pi-1")
	if len(evs) != 4 {
		t.Fatalf("pi-1 events: got %d, want 4 (pod+configmap, secret, configmap, pod)", len(evs))
	}
	if got := evs[0].Changes; len(got) != 2 || got[0].Resource != "configmaps" || got[1].Resource != "pods" || got[1].Type != mqtt.Added {
		t.Errorf("first event: got %+v, want ADDED configmap then ADDED pod", got)
	}
	topics := bus.topics()
	for topic := range topics {
		if strings.HasPrefix(topic, mqtt.WatchPrefix+"secrets/") {
			t.Errorf("a Secret went to watch topic %s", topic)
		}
	}
	if topics[mqtt.WatchTopic("configmaps", "default", "conf")] != 1 || topics[mqtt.WatchTopic("pods", "default", "web")] != 2 {
		t.Errorf("watch topics: got %v, want 1 message for configmaps/default/conf (one change after start) and 2 for pods/default/web", topics)
	}
}

func TestHelloBehindGetsACatchupThatReachesTheView(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	startPublisher(t, store, bus, Config{})
	w.configMap("a", "1")
	w.configMap("b", "1")
	w.pod("p1", "pi-1", "a", "", "x")
	w.pod("p2", "pi-1", "b", "", "x")
	held := caughtUp(t, bus, w, "pi-1")
	heldView, _ := replay(t, bus.events(t, "pi-1"), 0)
	sent := len(bus.events(t, "pi-1"))

	// Everything after `held` is lost on the way to the node.
	w.del("pods", "p1")               // p1 and configmap a leave the view
	w.configMap("b", "2")             // b changes
	w.pod("p3", "pi-1", "c", "", "y") // p3 arrives, its configmap c does not exist yet
	w.configMap("c", "1")
	w.pod("p2", "pi-2", "b", "", "x") // p2 moves away (same name, other node)
	caughtUp(t, bus, w, "pi-1")

	bus.ack(t, "pi-1", mqtt.AckHello, held)
	checkCatchup(t, bus, store, "pi-1", sent, held, heldView)
}

// checkCatchup waits for node's catch-up from held (an Event after the
// first sent, chaining from held), applies it to heldView, what the node
// held, and checks that the node then holds the store's view of it.
func checkCatchup(t *testing.T, bus *recordingBus, store datastore.Store, node string, sent int, held int64, heldView *client.Memory) {
	t.Helper()
	var catchup *mqtt.Event
	waitFor(t, "a catch-up", func() bool {
		evs := bus.events(t, node)
		catchup = evs[len(evs)-1]
		return len(evs) > sent && catchup.Prev == held
	})
	if err := heldView.Apply(context.Background(), *catchup); err != nil {
		t.Fatal(err)
	}
	if got, want := heldView.Versions(), storeView(t, store, node); !maps.Equal(got, want) {
		t.Errorf("view after the catch-up: got %v, want %v (catch-up: %+v)", got, want, catchup.Changes)
	}
}

func TestCatchupAcrossAPublisherRestart(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	first := startPublisher(t, store, bus, Config{})
	w.configMap("a", "1")
	w.pod("p1", "pi-1", "a", "", "x")
	held := caughtUp(t, bus, w, "pi-1")
	heldView, _ := replay(t, bus.events(t, "pi-1"), 0)
	first.Stop()

	w.configMap("a", "2") // while no publisher runs
	w.pod("p2", "pi-1", "", "", "x")
	bus2 := newRecordingBus()
	startPublisher(t, store, bus2, Config{})
	w.pod("p1", "pi-1", "a", "", "y") // after the new one started

	bus2.ack(t, "pi-1", mqtt.AckHello, held)
	waitFor(t, "the node to reach the store's view", func() bool {
		m, _ := replay(t, nil, 0)
		if err := m.Resync(context.Background(), stateOf(heldView)); err != nil {
			t.Fatal(err)
		}
		follow(t, m, bus2.events(t, "pi-1"), held, true)
		return maps.Equal(m.Versions(), storeView(t, store, "pi-1"))
	})
}

func TestCompactedHistoryAndEmptyNodesRelist(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	w.configMap("before", "1") // a node holding 0 now lacks something
	startPublisher(t, store, bus, Config{})
	first := w.pod("p1", "pi-1", "", "", "a")
	w.pod("p1", "pi-1", "", "", "b")
	last := w.pod("p1", "pi-1", "", "", "c")
	waitFor(t, "3 events", func() bool { return len(bus.events(t, "pi-1")) == 3 })
	if err := store.Compact(context.Background(), last); err != nil {
		t.Fatal(err)
	}
	bus.ack(t, "pi-1", mqtt.AckHello, first)
	waitFor(t, "a RELIST", func() bool {
		evs := bus.events(t, "pi-1")
		return len(evs) == 4 && evs[3].Type == mqtt.EventRelist && evs[3].Rev >= last
	})
	bus.ack(t, "pi-2", mqtt.AckHello, 0)
	waitFor(t, "a RELIST for a node holding nothing", func() bool {
		evs := bus.events(t, "pi-2")
		return len(evs) == 1 && evs[0].Type == mqtt.EventRelist
	})
}

func TestStuckNodeDoesNotHoldUpOthers(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	startPublisher(t, store, bus, Config{NodeQueue: 4, PublishTimeout: time.Hour})
	release := bus.block(mqtt.DesiredTopic("pi-1"))
	for i := range 20 {
		w.pod("p1", "pi-1", "", "", string(rune('a'+i)))
		w.pod("p2", "pi-2", "", "", string(rune('a'+i)))
	}
	caughtUp(t, bus, w, "pi-2") // pi-1's topic is stuck, pi-2 gets all 20
	if n := len(bus.events(t, "pi-1")); n != 0 {
		t.Fatalf("pi-1 events while blocked: got %d, want 0", n)
	}
	release()
	caughtUp(t, bus, w, "pi-1") // its overflow became a catch-up
	if n := len(bus.events(t, "pi-1")); n >= 20 {
		t.Errorf("pi-1 events after the overflow: got %d, want fewer than 20 (a catch-up replaces the backlog)", n)
	}
}

func TestSilentNodeGetsACatchupFromItsAck(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	p := startPublisher(t, store, bus, Config{StallTimeout: 50 * time.Millisecond})
	rev := w.pod("p1", "pi-1", "", "", "a")
	waitFor(t, "the first event", func() bool { return len(bus.events(t, "pi-1")) == 1 })
	bus.ack(t, "pi-1", mqtt.AckApplied, rev)
	w.pod("p1", "pi-1", "", "", "b") // published, never acknowledged
	waitFor(t, "a catch-up from the acknowledged revision", func() bool {
		evs := bus.events(t, "pi-1")
		return len(evs) >= 3 && evs[len(evs)-1].Prev == rev
	})
	if acked, ok := p.Acked("pi-1"); !ok || acked != rev {
		t.Errorf("Acked(pi-1): got %d, %v, want %d, true", acked, ok, rev)
	}
}

// The registry watch fails and is cut off; meanwhile pods change and the
// history is compacted. Once watches work again the publisher cannot
// resume: it rebuilds its index and tells every node to relist, then
// publishes later changes as usual.
func TestWatchBehindCompactionRelistsEveryNode(t *testing.T) {
	sqlite := openStore(t)
	store := storetest.NewFaults(sqlite)
	bus := newRecordingBus()
	w := writer{t, store}
	startPublisher(t, store, bus, Config{})
	w.pod("p1", "pi-1", "", "", "a")
	waitFor(t, "the first event", func() bool { return len(bus.events(t, "pi-1")) == 1 })
	store.FailWatches(registryPrefix, 1<<20, errors.New("injected watch failure"))
	if store.CutWatches(registryPrefix) != 1 {
		t.Fatal("want the publisher's registry watch cut off")
	}
	w.pod("p1", "pi-1", "", "", "b")
	last := w.pod("p2", "pi-1", "", "", "a")
	if err := sqlite.Compact(context.Background(), last); err != nil {
		t.Fatal(err)
	}
	store.Heal(registryPrefix)
	waitFor(t, "a RELIST", func() bool {
		evs := bus.events(t, "pi-1")
		return len(evs) == 2 && evs[1].Type == mqtt.EventRelist && evs[1].Rev >= last
	})
	w.pod("p3", "pi-1", "", "", "a")
	waitFor(t, "the change after the relist", func() bool {
		evs := bus.events(t, "pi-1")
		return len(evs) == 3 && evs[2].Type == mqtt.EventChanges && evs[2].Prev == evs[1].Rev
	})
}
