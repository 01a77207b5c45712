package publish

import (
	"context"
	"sync"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// historyGate holds back the history reads of catch-ups (watches of "/")
// while its gate is shut, so that a test can make changes the dispatcher
// handles while a catch-up is being built.
type historyGate struct {
	datastore.Store
	mu      sync.Mutex
	gate    chan struct{} // nil: open
	started chan struct{} // gets one value per held-back watch
}

func (s *historyGate) shut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate = make(chan struct{})
}

func (s *historyGate) open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.gate)
	s.gate = nil
}

func (s *historyGate) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan []datastore.Event, error) {
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	if prefix == "/" && gate != nil {
		s.started <- struct{}{}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.Store.Watch(ctx, prefix, afterRev)
}

// TestCatchupListsWhatTheLastLivePodReleased: the node holds a pod and
// the ConfigMap it mounts; the ConfigMap's deletion is lost on the way;
// the node says hello, and while its catch-up reads that history the pod
// is deleted. Nothing on the node names the ConfigMap any more and it
// does not exist, so no live change carries it, and the history holds
// its deletion but not the pod's: the catch-up must still delete it
// (e2e/mqttdelivery found the node keeping it for good).
func TestCatchupListsWhatTheLastLivePodReleased(t *testing.T) {
	store := &historyGate{Store: openStore(t), started: make(chan struct{}, 1)}
	bus := newRecordingBus()
	w := writer{t, store}
	startPublisher(t, store, bus, Config{})
	w.configMap("a", "1")
	w.pod("p1", "pi-1", "a", "", "x")
	held := caughtUp(t, bus, w, "pi-1")
	heldView, _ := replay(t, bus.events(t, "pi-1"), 0)

	w.del("configmaps", "a") // lost on the way to the node
	caughtUp(t, bus, w, "pi-1")
	sent := len(bus.events(t, "pi-1"))

	store.shut()
	bus.ack(t, "pi-1", mqtt.AckHello, held)
	<-store.started // the catch-up reads the history from held
	w.del("pods", "p1")
	w.pod("p2", "pi-2", "", "", "x") // handled after p1's deletion
	waitFor(t, "pi-2's pod", func() bool { return len(bus.events(t, "pi-2")) > 0 })
	store.open()

	checkCatchup(t, bus, store, "pi-1", sent, held, heldView)
}
