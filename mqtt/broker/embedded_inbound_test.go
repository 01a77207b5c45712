package broker

import (
	"sync/atomic"
	"testing"

	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/bramble-edge/bramble/mqtt"
)

// TestNodePublishReachesServerSubscriptions: a node's publishes reach the
// server's subscriptions made, and stop reaching those closed, after the
// node's earlier publishes were routed; a topic the node may not write is
// still refused.
func TestNodePublishReachesServerSubscriptions(t *testing.T) {
	b := bareBroker(t)
	cl, _ := session(b, "pi-1", "node:pi-1", mqtt.DesiredTopic("pi-1"))
	inject := func(topic string) {
		t.Helper()
		pk := packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Publish}, TopicName: topic, Payload: []byte("{}")}
		if err := b.server.InjectPacket(cl, pk); err != nil {
			t.Fatalf("inject %s: %v", topic, err)
		}
	}
	var first, second atomic.Int64
	subscribe := func(n *atomic.Int64) interface{ Close() error } {
		bus := b.Bus()
		if err := bus.Subscribe(mqtt.Prefix+"/nodes/+/status", 0, func(string, []byte) { n.Add(1) }); err != nil {
			t.Fatal(err)
		}
		return bus
	}
	check := func(when string, wantFirst, wantSecond int64) {
		t.Helper()
		if first.Load() != wantFirst || second.Load() != wantSecond {
			t.Fatalf("%s: subscriptions got %d and %d, want %d and %d", when, first.Load(), second.Load(), wantFirst, wantSecond)
		}
	}
	inject(mqtt.StatusTopic("pi-1")) // nobody subscribes yet
	a := subscribe(&first)
	inject(mqtt.StatusTopic("pi-1"))
	check("one subscription", 1, 0)
	subscribe(&second)
	inject(mqtt.StatusTopic("pi-1"))
	check("two subscriptions", 2, 1)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	inject(mqtt.StatusTopic("pi-1"))
	check("the first closed", 2, 2)
	inject(mqtt.StatusTopic("pi-2")) // another node's topic: refused by the ACL
	check("a foreign topic", 2, 2)
}

// TestNodePublishAllocations: a node's publish that only server
// subscriptions receive skips mochi's subscriber lookup (four maps and the
// copies of each matching level's subscriptions: 10 allocations with two
// server subscriptions). What is left is mochi boxing the two errors it
// compares a hook's answer with, twice.
func TestNodePublishAllocations(t *testing.T) {
	b := bareBroker(t)
	cl, _ := session(b, "pi-1", "node:pi-1", mqtt.DesiredTopic("pi-1"))
	var got atomic.Int64
	for _, f := range []string{mqtt.Prefix + "/nodes/+/status", mqtt.Prefix + "/nodes/+/ack"} {
		if err := b.Bus().Subscribe(f, 0, func(string, []byte) { got.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	pk := packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Publish}, TopicName: mqtt.StatusTopic("pi-1"), Payload: []byte("{}")}
	allocs := testing.AllocsPerRun(100, func() {
		if err := b.server.InjectPacket(cl, pk); err != nil {
			t.Fatal(err)
		}
	})
	if got.Load() != 101 {
		t.Fatalf("the subscription got %d of 101 publishes", got.Load())
	}
	t.Logf("%.1f allocations per publish", allocs)
	if allocs > 4 {
		t.Fatalf("%.1f allocations per publish, want <= 4", allocs)
	}
}

// TestRoutesShareServerSubscriptionLists: the routes of topics with the
// same server subscriptions hold one list between them, not one each.
func TestRoutesShareServerSubscriptionLists(t *testing.T) {
	b := bareBroker(t)
	if err := b.Bus().Subscribe(mqtt.Prefix+"/nodes/+/status", 0, func(string, []byte) {}); err != nil {
		t.Fatal(err)
	}
	one, two := b.routes.lookup(mqtt.StatusTopic("pi-1")), b.routes.lookup(mqtt.StatusTopic("pi-2"))
	if one.kind != toServer || two.kind != toServer || len(one.inline) != 1 || len(two.inline) != 1 {
		t.Fatalf("routes %+v and %+v, want one server subscription each", one, two)
	}
	if &one.inline[0] != &two.inline[0] {
		t.Fatal("two topics with the same server subscription hold a list each")
	}
}
