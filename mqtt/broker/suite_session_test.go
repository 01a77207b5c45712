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

// testOfflineNodeCatchesUp: QoS 1 messages published while the node's
// persistent session is offline reach it when it reconnects. (In any
// order: mochi resends a session's in-flight messages sorted by the second
// they were made in, not by packet ID.)
func testOfflineNodeCatchesUp(t *testing.T, env *brokerEnv) {
	node := uniq("pi-off")
	nodeSession(t, env, node, persistentOptions(t, env, node, newInbox())).Disconnect(0)
	env.settle(t, node)
	topic := mqtt.DesiredTopic(node)
	var want []string
	for _, p := range []string{"rev-1", "rev-2", "rev-3"} {
		busPublish(t, env.bus, topic, 1, p)
		want = append(want, topic+" "+p)
	}
	in := newInbox()
	mustDial(t, persistentOptions(t, env, node, in)) // the session's subscription is still there
	only(t, "node received after reconnect", waitAll(t, in, want...), want...)
}

// waitAll waits until in holds every one of msgs and returns all it holds.
func waitAll(t *testing.T, in *inbox, msgs ...string) []string {
	t.Helper()
	var got []string
	for _, m := range msgs {
		got = in.waitFor(t, m)
	}
	return got
}

// held collects messages a client with manual acknowledgements received.
type held struct {
	mu   sync.Mutex
	msgs []paho.Message
}

func (h *held) add(_ paho.Client, m paho.Message) {
	h.mu.Lock()
	h.msgs = append(h.msgs, m)
	h.mu.Unlock()
}

// wait waits for n messages and returns them as "topic payload".
func (h *held) wait(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	waitUntil(t, fmt.Sprint(n, " messages"), func() bool { h.mu.Lock(); defer h.mu.Unlock(); return len(h.msgs) >= n })
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.msgs {
		out = append(out, m.Topic()+" "+string(m.Payload()))
	}
	return out
}

// ackAll acknowledges what was received; the PUBACKs go out before a later
// DISCONNECT (one outbound queue in paho).
func (h *held) ackAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.msgs {
		m.Ack()
	}
}

// testUnackedRedelivered: a QoS 1 message the node received but never
// acknowledged comes again when it reconnects, and not once more after
// it acknowledged it.
func testUnackedRedelivered(t *testing.T, env *brokerEnv) {
	node := uniq("pi-dup")
	topic := mqtt.DesiredTopic(node)
	first := &held{}
	o := persistentOptions(t, env, node, nil).SetAutoAckDisabled(true)
	c := nodeSession(t, env, node, o.SetDefaultPublishHandler(first.add))
	busPublish(t, env.bus, topic, 1, "rev-1")
	first.wait(t, 1)
	c.Disconnect(0) // without acknowledging
	env.settle(t, node)

	second := &held{}
	o = persistentOptions(t, env, node, nil).SetAutoAckDisabled(true)
	c = mustDial(t, o.SetDefaultPublishHandler(second.add))
	only(t, "redelivered", second.wait(t, 1), topic+" rev-1")
	busPublish(t, env.bus, topic, 1, "rev-2")
	only(t, "on the new connection", second.wait(t, 2), topic+" rev-1", topic+" rev-2")
	second.ackAll()
	c.Disconnect(250)
	env.settle(t, node)

	in := newInbox()
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
