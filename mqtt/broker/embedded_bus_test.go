package broker_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

func TestInlineBus(t *testing.T) {
	env := newEmbedded(t, nil)
	a, b := env.broker.Bus(), env.broker.Bus()
	ina, inb := newInbox(), newInbox()
	if err := env.bus.Publish(t.Context(), mqtt.PresenceTopic("pi-1"), 1, true, []byte("online")); err != nil {
		t.Fatal(err)
	}
	if err := a.Subscribe(mqtt.Prefix+"/nodes/+/presence", 1, ina.add); err != nil {
		t.Fatal(err)
	}
	ina.waitFor(t, mqtt.PresenceTopic("pi-1")+" online") // retained, at subscription
	if err := b.Subscribe(mqtt.WatchPrefix+"#", 0, inb.add); err != nil {
		t.Fatal(err)
	}
	busPublish(t, b, mqtt.WatchTopic("pods", "default", "p"), 1, "w1")
	inb.waitFor(t, mqtt.WatchTopic("pods", "default", "p")+" w1")

	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	busPublish(t, b, mqtt.PresenceTopic("pi-2"), 1, "online")
	busPublish(t, b, mqtt.WatchTopic("pods", "default", "p"), 1, "w2")
	inb.waitFor(t, mqtt.WatchTopic("pods", "default", "p")+" w2")
	only(t, "closed bus received", ina.all(), mqtt.PresenceTopic("pi-1")+" online")
	if err := a.Publish(t.Context(), "a/b", 0, false, nil); !errors.Is(err, mqtt.ErrBusClosed) {
		t.Errorf("Publish on a closed bus: got %v, want ErrBusClosed", err)
	}
	if err := a.Subscribe("a/b", 0, ina.add); !errors.Is(err, mqtt.ErrBusClosed) {
		t.Errorf("Subscribe on a closed bus: got %v, want ErrBusClosed", err)
	}
}

func TestBusRefusesBadInput(t *testing.T) {
	env := newEmbedded(t, nil)
	testBusRefusesBadInput(t, env.bus)
}

// testBusRefusesBadInput holds for every Bus.
func testBusRefusesBadInput(t *testing.T, bus mqtt.Bus) {
	for _, topic := range []string{"", "a/+", "a/#", "$SYS/x", "a\x00b"} {
		if err := bus.Publish(t.Context(), topic, 0, false, nil); err == nil {
			t.Errorf("Publish to %q: got no error", topic)
		}
	}
	if err := bus.Publish(t.Context(), "a/b", 3, false, nil); err == nil {
		t.Error("Publish with QoS 3: got no error")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := bus.Publish(ctx, "a/b", 1, false, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Publish with a cancelled context: got %v, want context.Canceled", err)
	}
	noop := func(string, []byte) {}
	for _, filter := range []string{"", "a/#/b", "a#"} {
		if err := bus.Subscribe(filter, 0, noop); err == nil {
			t.Errorf("Subscribe to %q: got no error", filter)
		}
	}
	if err := bus.Subscribe("a/b", 3, noop); err == nil {
		t.Error("Subscribe with QoS 3: got no error")
	}
	if err := bus.Subscribe("a/b", 0, nil); err == nil {
		t.Error("Subscribe with a nil handler: got no error")
	}
}
