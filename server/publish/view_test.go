package publish

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// processedUpTo waits until the dispatcher has processed rev.
func processedUpTo(t testing.TB, p *Publisher, rev int64) {
	t.Helper()
	waitFor(t, "the publisher to process the writes", func() bool {
		v, err := p.View(context.Background(), "nobody", 0)
		return err == nil && v.Rev >= rev
	})
}

// applyView applies v to m as the client would.
func applyView(t testing.TB, m *client.Memory, v *mqtt.View) {
	t.Helper()
	var err error
	if v.Full {
		err = m.Resync(context.Background(), client.State{Rev: v.Rev, Objects: v.Changes})
	} else {
		err = m.Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: v.Rev, Prev: v.Since, Changes: v.Changes})
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestWholeViewComesFromTheIndex(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	w.configMap("conf", "1")
	w.secret("pull", "1")
	w.pod("web", "pi-1", "conf", "pull", "a") // before the publisher started
	p := startPublisher(t, store, bus, Config{})
	w.pod("db", "pi-1", "conf", "", "a")
	w.pod("elsewhere", "pi-2", "conf", "", "a")
	w.configMap("unused", "1")
	last := w.podStatus("db", "pi-1", "conf", "a", true)
	processedUpTo(t, p, last)

	v, err := p.View(context.Background(), "pi-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Full || v.Rev < last || len(v.Changes) != 4 {
		t.Fatalf("view: got full=%v rev %d with %d objects, want a full view at >= %d with 4 (2 pods, conf, pull)", v.Full, v.Rev, len(v.Changes), last)
	}
	m := client.NewMemory()
	applyView(t, m, v)
	if got, want := m.Versions(), storeView(t, store, "pi-1"); !maps.Equal(got, want) {
		t.Errorf("view: got %v, want %v", got, want)
	}
}

func TestViewSinceIsTheChangesSince(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	p := startPublisher(t, store, bus, Config{})
	w.configMap("a", "1")
	w.pod("p1", "pi-1", "a", "", "x")
	w.pod("p2", "pi-1", "", "", "x")
	held := caughtUp(t, bus, w, "pi-1")
	m, _ := replay(t, bus.events(t, "pi-1"), 0)

	w.del("pods", "p1")                        // p1 and a leave the view
	w.pod("p3", "pi-1", "b", "", "y")          // p3 arrives
	w.configMap("b", "1")                      // with its configmap
	w.podStatus("p2", "pi-1", "", "x", true)   // status only: not a change
	last := w.pod("other", "pi-2", "", "", "") // another node's
	processedUpTo(t, p, last)

	v, err := p.View(context.Background(), "pi-1", held)
	if err != nil {
		t.Fatal(err)
	}
	if v.Full || v.Since != held || v.Rev < last {
		t.Fatalf("view since %d: got full=%v since %d rev %d, want the changes since %d up to >= %d", held, v.Full, v.Since, v.Rev, held, last)
	}
	names := map[string]bool{}
	for _, c := range v.Changes {
		names[c.Name] = true
	}
	if want := map[string]bool{"p1": true, "a": true, "p3": true, "b": true}; !maps.Equal(names, want) {
		t.Errorf("changes: got %v, want p1, a, p3, b (not p2: status only)", names)
	}
	applyView(t, m, v)
	want := storeView(t, store, "pi-1")
	want[mqtt.ObjectRef{Resource: "pods", Namespace: "default", Name: "p2"}] = m.Versions()[mqtt.ObjectRef{Resource: "pods", Namespace: "default", Name: "p2"}]
	if got := m.Versions(); !maps.Equal(got, want) {
		t.Errorf("view after the changes: got %v, want %v", got, want)
	}
}

func TestViewFallsBackToWholeAndRefusesTheFuture(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	p := startPublisher(t, store, bus, Config{})
	first := w.pod("p1", "pi-1", "", "", "a")
	last := w.pod("p1", "pi-1", "", "", "b")
	processedUpTo(t, p, last)
	ctx := context.Background()

	if v, err := p.View(ctx, "pi-1", last); err != nil || v.Full || v.Rev != last || len(v.Changes) != 0 {
		t.Errorf("view since the current revision: got %+v, %v; want no changes at %d", v, err, last)
	}
	if _, err := p.View(ctx, "pi-1", last+100); !errors.Is(err, ErrBehind) {
		t.Errorf("view since a revision not reached: got %v, want ErrBehind", err)
	}
	if err := store.Compact(ctx, last); err != nil {
		t.Fatal(err)
	}
	if v, err := p.View(ctx, "pi-1", first); err != nil || !v.Full || len(v.Changes) != 1 {
		t.Errorf("view since a compacted revision: got %+v, %v; want the whole view (1 pod)", v, err)
	}
}
