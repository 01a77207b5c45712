package broker_test

import (
	"crypto/tls"
	"net"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/mqtt"
)

// deliveryGrace is how long a message to another connection may trail the
// witness's; it can only make a leak go unseen, never fail a good broker.
const deliveryGrace = 300 * time.Millisecond

// expectNothing connects with o (a refusal is fine) and, if admitted,
// subscribes to node's subtree and everything; then the server publishes to
// node and to a witness node; once the witness has its message, in must
// still be empty.
func expectNothing(t *testing.T, env *brokerEnv, o *paho.ClientOptions, in *inbox, node string) {
	t.Helper()
	c, err := dial(t, o)
	if err != nil {
		t.Logf("%s refused at connect: %v", o.ClientID, err)
		return
	}
	subscribe(t, c, mqtt.NodeSubtree(node)+"#", "#", mqtt.WatchPrefix+"#")
	witness := uniq("witness")
	win := newInbox()
	wc := mustDial(t, pahoOptions(env.addr, witness, clientTLS(env.ca.CAPool(), ptr(env.addNode(t, witness))), win))
	subscribe(t, wc, mqtt.NodeSubtree(witness)+"#")
	busPublish(t, env.bus, mqtt.DesiredTopic(node), 1, "leak")
	busPublish(t, env.bus, mqtt.WatchTopic("pods", "default", "p"), 1, "leak")
	busPublish(t, env.bus, mqtt.DesiredTopic(witness), 1, "end")
	win.waitFor(t, mqtt.DesiredTopic(witness)+" end")
	time.Sleep(deliveryGrace)
	only(t, o.ClientID+" received", in.all())
}

func testRefusedIdentities(t *testing.T, env *brokerEnv) {
	node := uniq("pi")
	roots := env.ca.CAPool()
	t.Run("Anonymous", func(t *testing.T) {
		in := newInbox()
		expectNothing(t, env, pahoOptions(env.addr, node, clientTLS(roots, nil), in), in, node)
	})
	t.Run("PlainTCP", func(t *testing.T) {
		in := newInbox()
		o := pahoOptions(env.addr, node, nil, in)
		o.Servers[0].Scheme = "tcp"
		expectNothing(t, env, o, in, node)
	})
	t.Run("OtherCA", func(t *testing.T) {
		other := newTestCA(t)
		in := newInbox()
		expectNothing(t, env, pahoOptions(env.addr, node, clientTLS(roots, ptr(other.nodeCert(t, node))), in), in, node)
	})
	t.Run("Revoked", func(t *testing.T) {
		revoked := uniq("pi-revoked")
		cert := env.addNode(t, revoked)
		env.revoke(t, revoked)
		in := newInbox()
		expectNothing(t, env, pahoOptions(env.addr, revoked, clientTLS(roots, &cert), in), in, revoked)
	})
}

// testWrongClientID: a node that claims another node's client ID gets
// none of that node's messages and does not disconnect it.
func testWrongClientID(t *testing.T, env *brokerEnv) {
	victim, me := uniq("pi-victim"), uniq("pi-me")
	vin := newInbox()
	var lost atomic.Bool
	vo := pahoOptions(env.addr, victim, clientTLS(env.ca.CAPool(), ptr(env.addNode(t, victim))), vin)
	vo.SetConnectionLostHandler(func(paho.Client, error) { lost.Store(true) })
	vc := mustDial(t, vo)
	subscribe(t, vc, mqtt.NodeSubtree(victim)+"#")

	in := newInbox()
	o := pahoOptions(env.addr, victim, clientTLS(env.ca.CAPool(), ptr(env.addNode(t, me))), in)
	expectNothing(t, env, o, in, victim)

	busPublish(t, env.bus, mqtt.DesiredTopic(victim), 1, "still-here")
	vin.waitFor(t, mqtt.DesiredTopic(victim)+" still-here")
	if lost.Load() || !vc.IsConnectionOpen() {
		t.Fatalf("victim's connection: lost=%v open=%v, want kept", lost.Load(), vc.IsConnectionOpen())
	}
}

// testRevokeLiveSession: after the revocation a connected node gets
// nothing more.
func testRevokeLiveSession(t *testing.T, env *brokerEnv) {
	node := uniq("pi")
	in := newInbox()
	c := mustDial(t, pahoOptions(env.addr, node, clientTLS(env.ca.CAPool(), ptr(env.addNode(t, node))), in))
	subscribe(t, c, mqtt.NodeSubtree(node)+"#")
	busPublish(t, env.bus, mqtt.DesiredTopic(node), 1, "before")
	in.waitFor(t, mqtt.DesiredTopic(node)+" before")

	env.revoke(t, node)
	witness := uniq("witness")
	win := newInbox()
	wc := mustDial(t, pahoOptions(env.addr, witness, clientTLS(env.ca.CAPool(), ptr(env.addNode(t, witness))), win))
	subscribe(t, wc, mqtt.NodeSubtree(witness)+"#")
	busPublish(t, env.bus, mqtt.DesiredTopic(node), 1, "after")
	busPublish(t, env.bus, mqtt.DesiredTopic(witness), 1, "end")
	win.waitFor(t, mqtt.DesiredTopic(witness)+" end")
	time.Sleep(deliveryGrace)
	only(t, "revoked node received", in.all(), mqtt.DesiredTopic(node)+" before")
}

// testForgedWill: a node's Last Will aimed at another node's presence is
// never delivered (the embedded broker refuses the connection, mosquitto
// checks the will against the ACL).
func testForgedWill(t *testing.T, env *brokerEnv) {
	me, other := uniq("pi-a"), uniq("pi-b")
	env.addNode(t, other)
	server := newInbox()
	if err := env.bus.Subscribe(mqtt.Prefix+"/nodes/+/presence", 1, server.add); err != nil {
		t.Fatal(err)
	}
	cfg := clientTLS(env.ca.CAPool(), ptr(env.addNode(t, me)))
	o := pahoOptions(env.addr, me, cfg, nil)
	o.SetWill(mqtt.PresenceTopic(other), "forged", 1, true)
	var conn net.Conn
	o.SetCustomOpenConnectionFn(func(u *url.URL, _ paho.ClientOptions) (net.Conn, error) {
		c, err := tls.Dial("tcp", u.Host, cfg)
		conn = c
		return c, err
	})
	if _, err := dial(t, o); err == nil {
		_ = conn.Close() // no DISCONNECT: the broker sends the will
	}
	c := mustDial(t, pahoOptions(env.addr, me, cfg, nil))
	publish(t, c, mqtt.PresenceTopic(me), 1, "end")
	server.waitFor(t, mqtt.PresenceTopic(me)+" end")
	time.Sleep(deliveryGrace)
	only(t, "presence messages", withPayload(server.all(), "forged", "end"), mqtt.PresenceTopic(me)+" end")
}
