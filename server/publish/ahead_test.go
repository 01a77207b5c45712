package publish

import (
	"context"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

// TestNodeAheadOfTheServerIsToldToRelist: a node holding a revision the
// server never issued (its datastore was restored from an older snapshot)
// must relist; the publisher used to take it as holding everything, and
// the node then skipped every change up to its revision.
func TestNodeAheadOfTheServerIsToldToRelist(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	startPublisher(t, store, bus, Config{})
	w.pod("p1", "pi-1", "", "", "a")
	held := caughtUp(t, bus, w, "pi-1")
	cur, _ := store.CurrentRevision(context.Background())
	for _, ahead := range []int64{cur + 1, cur + 500} {
		before := len(bus.events(t, "pi-1"))
		bus.ack(t, "pi-1", mqtt.AckHello, ahead)
		waitFor(t, "a RELIST for a node ahead of the server", func() bool {
			evs := bus.events(t, "pi-1")
			return len(evs) == before+1 && evs[before].Type == mqtt.EventRelist
		})
	}
	bus.ack(t, "pi-1", mqtt.AckHello, held) // a node that holds what was sent gets nothing
	w.pod("p2", "pi-1", "", "", "a")
	waitFor(t, "the next change", func() bool {
		evs := bus.events(t, "pi-1")
		return evs[len(evs)-1].Type == mqtt.EventChanges
	})
}
