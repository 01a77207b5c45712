package broker_test

import (
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// Two dashboards sharing one viewer credential connect at once with the
// client IDs "<viewer>/<suffix>" and both receive what they watch; client
// IDs that are not the identity's are refused, and nodes get no suffix.
func TestEmbeddedViewerClientIDSuffixes(t *testing.T) {
	env := newEmbedded(t, nil)
	roots := env.ca.CAPool()
	viewer := env.ca.clientCert(t, "alice", broker.ViewerGroup)
	kitchen, hall := newInbox(), newInbox()
	a := mustDial(t, pahoOptions(env.addr, "alice/kitchen", clientTLS(roots, &viewer), kitchen))
	b := mustDial(t, pahoOptions(env.addr, "alice/hall", clientTLS(roots, &viewer), hall))
	plain := mustDial(t, pahoOptions(env.addr, "alice", clientTLS(roots, &viewer), nil))
	subscribe(t, a, mqtt.WatchPrefix+"#")
	subscribe(t, b, mqtt.WatchPrefix+"#")
	busPublish(t, env.bus, mqtt.WatchTopic("pods", "default", "p"), 1, "w1")
	kitchen.waitFor(t, mqtt.WatchTopic("pods", "default", "p")+" w1")
	hall.waitFor(t, mqtt.WatchTopic("pods", "default", "p")+" w1")
	for _, c := range []interface{ IsConnectionOpen() bool }{a, b, plain} {
		if !c.IsConnectionOpen() {
			t.Error("a dashboard was disconnected by the other's connection")
		}
	}
	node := env.addNode(t, "pi-1")
	for _, tc := range []struct{ id, cert string }{
		{"alice/", "alice"}, {"alice/a/b", "alice"}, {"alice/#", "alice"}, {"alice/+", "alice"},
		{"alicex", "alice"}, {"bob/x", "alice"}, {fmt.Sprintf("alice/%065d", 0), "alice"}, {"pi-1/x", "pi-1"},
	} {
		cert := &viewer
		if tc.cert == "pi-1" {
			cert = &node
		}
		if c, err := dial(t, pahoOptions(env.addr, tc.id, clientTLS(roots, cert), nil)); err == nil {
			c.Disconnect(0)
			t.Errorf("client ID %q with %s's certificate: admitted, want refused", tc.id, tc.cert)
		}
	}
}
