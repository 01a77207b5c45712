package publish

import (
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

// watchedBus is a recordingBus whose broker knows its subscriptions: only
// the topics in watched have one.
type watchedBus struct {
	*recordingBus
	watched map[string]bool
}

func (b watchedBus) HasSubscribers(topic string) bool { return b.watched[topic] }

// TestWatchTopicsNobodyWatchesAreSkipped: with a bus that can tell, watch
// messages go only to topics someone subscribed to; node streams are sent
// as ever.
func TestWatchTopicsNobodyWatchesAreSkipped(t *testing.T) {
	store := openStore(t)
	watchedTopic := mqtt.WatchTopic("pods", "default", "watched")
	bus := watchedBus{newRecordingBus(), map[string]bool{watchedTopic: true}}
	w := writer{t, store}
	startPublisher(t, store, bus, Config{})
	w.pod("unwatched", "pi-1", "", "", "a")
	w.pod("watched", "pi-1", "", "", "a")
	waitFor(t, "both pods' events on pi-1", func() bool { return len(bus.events(t, "pi-1")) == 2 })
	waitFor(t, "the watched pod's watch message", func() bool { return bus.topics()[watchedTopic] == 1 })
	if got := bus.topics()[mqtt.WatchTopic("pods", "default", "unwatched")]; got != 0 {
		t.Errorf("watch messages for a topic nobody subscribed to: got %d, want 0", got)
	}
}
