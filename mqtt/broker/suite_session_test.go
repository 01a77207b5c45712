package broker_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/mqtt"
)

// runSessionSuite is what a node's session is promised for the server's
// publishes on its topics, run against the embedded broker (whose inline
// Bus hands a node's messages straight to its session) and mosquitto.
func runSessionSuite(t *testing.T, env *brokerEnv) {
	t.Run("InOrder", func(t *testing.T) { testNodeGetsUpdatesInOrder(t, env) })
	t.Run("OfflineNodeGetsUpdatesOnReconnect", func(t *testing.T) { testOfflineNodeCatchesUp(t, env) })
	t.Run("UnackedRedeliveredOnReconnect", func(t *testing.T) { testUnackedRedelivered(t, env) })
	t.Run("ServerSubscriberSharesNodeTopic", func(t *testing.T) { testServerSharesNodeTopic(t, env) })
}

func TestEmbeddedNodeSessions(t *testing.T) {
	runSessionSuite(t, newEmbedded(t, nil).brokerEnv)
}

func TestMosquittoNodeSessions(t *testing.T) {
	env, _ := newMosquittoEnv(t)
	runSessionSuite(t, env)
}

// nodeSession connects node with a persistent session (as agents do) and
// subscribes to its desired topic at QoS 1.
func nodeSession(t *testing.T, env *brokerEnv, node string, o *paho.ClientOptions) paho.Client {
	t.Helper()
	c := mustDial(t, o)
	subscribe(t, c, mqtt.DesiredTopic(node))
	return c
}

func persistentOptions(t *testing.T, env *brokerEnv, node string, in *inbox) *paho.ClientOptions {
	t.Helper()
	cert := env.addNode(t, node)
	return pahoOptions(env.addr, node, clientTLS(env.ca.CAPool(), &cert), in).SetCleanSession(false).SetOrderMatters(true)
}

func testNodeGetsUpdatesInOrder(t *testing.T, env *brokerEnv) {
	node := uniq("pi-order")
	in := newInbox()
	nodeSession(t, env, node, persistentOptions(t, env, node, in))
	var want []string
	for i := range 50 {
		busPublish(t, env.bus, mqtt.DesiredTopic(node), 1, fmt.Sprint(i))
		want = append(want, mqtt.DesiredTopic(node)+" "+fmt.Sprint(i))
	}
	if got := in.waitFor(t, want[len(want)-1]); !slices.Equal(got, want) {
		t.Fatalf("node received %q, want %q", got, want)
	}
}

func testOfflineNodeCatchesUp(t *testing.T, env *brokerEnv) {
	node := uniq("pi-off")
	o := persistentOptions(t, env, node, newInbox())
	nodeSession(t, env, node, o).Disconnect(0)
	env.settle(t, node)
	for _, p := range []string{"rev-1", "rev-2", "rev-3"} {
		busPublish(t, env.bus, mqtt.DesiredTopic(node), 1, p)
	}
	in := newInbox()
	o = persistentOptions(t, env, node, in)
	mustDial(t, o) // the session's subscription is still there
	topic := mqtt.DesiredTopic(node)
	want := []string{topic + " rev-1", topic + " rev-2", topic + " rev-3"}
	if got := in.waitFor(t, want[2]); !slices.Equal(got, want) {
		t.Fatalf("node received after reconnect %q, want %q", got, want)
	}
}

// testUnackedRedelivered: a QoS 1 message the node received but never
// acknowledged comes again when it reconnects, and not once more after
// it acknowledged it.
func testUnackedRedelivered(t *testing.T, env *brokerEnv) {
	node := uniq("pi-dup")
	topic := mqtt.DesiredTopic(node)
	var mu sync.Mutex
	var held []paho.Message
	o := persistentOptions(t, env, node, nil).SetAutoAckDisabled(true)
	o.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) { mu.Lock(); held = append(held, m); mu.Unlock() })
	c := nodeSession(t, env, node, o)
	busPublish(t, env.bus, topic, 1, "rev-1")
	waitUntil(t, "rev-1 received", func() bool { mu.Lock(); defer mu.Unlock(); return len(held) == 1 })
	c.Disconnect(0) // without acknowledging
	env.settle(t, node)

	in := newInbox()
	o = persistentOptions(t, env, node, in)
	c = mustDial(t, o)
	only(t, "redelivered", in.waitFor(t, topic+" rev-1"), topic+" rev-1")
	busPublish(t, env.bus, topic, 1, "rev-2")
	in.waitFor(t, topic+" rev-2")
	c.Disconnect(250) // both acknowledged by now (auto-ack)
	env.settle(t, node)

	in = newInbox()
	mustDial(t, persistentOptions(t, env, node, in))
	busPublish(t, env.bus, topic, 1, "end")
	only(t, "after acknowledging", in.waitFor(t, topic+" end"), topic+" end")
}

// testServerSharesNodeTopic: a server subscription to node topics made
// after the node's session got messages still gets the next one, and the
// node too.
func testServerSharesNodeTopic(t *testing.T, env *brokerEnv) {
	node := uniq("pi-share")
	topic := mqtt.DesiredTopic(node)
	in := newInbox()
	nodeSession(t, env, node, persistentOptions(t, env, node, in))
	busPublish(t, env.bus, topic, 1, "first")
	in.waitFor(t, topic+" first")
	server := newInbox()
	if err := env.bus.Subscribe(mqtt.Prefix+"/nodes/+/desired", 1, server.add); err != nil {
		t.Fatal(err)
	}
	busPublish(t, env.bus, topic, 1, "second")
	only(t, "server received", server.waitFor(t, topic+" second"), topic+" second")
	only(t, "node received", in.waitFor(t, topic+" second"), topic+" first", topic+" second")
}
