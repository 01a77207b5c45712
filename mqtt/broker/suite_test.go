package broker_test

import (
	"context"
	"crypto/tls"
	"slices"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

// runIsolationSuite is the delivery and isolation contract, run against
// the embedded broker and against mosquitto with the shipped configuration.
// Denials are often silent (a granting SUBACK, an acknowledged publish), so
// every check is on what is delivered: forbidden messages go first, then a
// sentinel the receiver may get; once the sentinel is in, nothing else may
// be.
func runIsolationSuite(t *testing.T, env *brokerEnv) {
	t.Run("ViewerReceivesOnlyWatch", func(t *testing.T) { testViewerReceivesOnlyWatch(t, env) })
	t.Run("ViewerPublishesNowhere", func(t *testing.T) { testViewerPublishesNowhere(t, env) })
	t.Run("NodeReadsOnlyOwnSubtree", func(t *testing.T) { testNodeReadsOnlyOwnSubtree(t, env) })
	t.Run("NodeWritesOnlyOwnSubtree", func(t *testing.T) { testNodeWritesOnlyOwnSubtree(t, env) })
	t.Run("RefusedIdentities", func(t *testing.T) { testRefusedIdentities(t, env) })
	t.Run("WrongClientIDGetsNothing", func(t *testing.T) { testWrongClientID(t, env) })
	t.Run("RevokeLiveSession", func(t *testing.T) { testRevokeLiveSession(t, env) })
	t.Run("ForgedWillNotDelivered", func(t *testing.T) { testForgedWill(t, env) })
}

func testViewerReceivesOnlyWatch(t *testing.T, env *brokerEnv) {
	name := uniq("viewer")
	dir := env.addViewer(t, name)
	sub := startMosquittoSub(t, env.addr, dir, name, mqtt.WatchPrefix+"#", mqtt.Prefix+"/nodes/#", "#")
	sub.waitLine(t, "Subscribed")
	node := uniq("pi")
	busPublish(t, env.bus, mqtt.DesiredTopic(node), 1, "desired-for-node")
	busPublish(t, env.bus, mqtt.StatusTopic(node), 0, "status-of-node")
	busPublish(t, env.bus, mqtt.WatchTopic("configmaps", "default", "cm1"), 1, "cm1-added")
	busPublish(t, env.bus, mqtt.WatchTopic("nodes", "", node), 0, "end")
	sub.waitLine(t, "MSG "+mqtt.WatchTopic("nodes", "", node))
	only(t, "mosquitto_sub (viewer) received", sub.messages(),
		mqtt.WatchTopic("configmaps", "default", "cm1")+" cm1-added",
		mqtt.WatchTopic("nodes", "", node)+" end")
}

func testViewerPublishesNowhere(t *testing.T, env *brokerEnv) {
	name := uniq("viewer")
	dir := env.addViewer(t, name)
	server := newInbox()
	if err := env.bus.Subscribe(mqtt.Prefix+"/#", 1, server.add); err != nil {
		t.Fatalf("bus subscribe: %v", err)
	}
	node := uniq("pi")
	nodeIn := newInbox()
	nc := mustDial(t, pahoOptions(env.addr, node, clientTLS(env.ca.CAPool(), ptr(env.addNode(t, node))), nodeIn))
	subscribe(t, nc, mqtt.NodeSubtree(node)+"#")
	for _, qos := range []int{0, 1} {
		for _, topic := range []string{mqtt.WatchTopic("pods", "default", "evil"), mqtt.DesiredTopic(node), mqtt.Prefix + "/x"} {
			mosquittoPub(t, env.addr, dir, name, topic, qos, "from-viewer")
			env.settle(t, name)
		}
	}
	publish(t, nc, mqtt.StatusTopic(node), 1, "end")
	got := server.waitFor(t, mqtt.StatusTopic(node)+" end")
	only(t, "server received", withPayload(got, "from-viewer", "end"), mqtt.StatusTopic(node)+" end")
	only(t, "node received", nodeIn.waitFor(t, mqtt.StatusTopic(node)+" end"), mqtt.StatusTopic(node)+" end")
}

func testNodeReadsOnlyOwnSubtree(t *testing.T, env *brokerEnv) {
	me, other := uniq("pi-a"), uniq("pi-b")
	env.addNode(t, other)
	ctx := t.Context()
	if err := env.bus.Publish(ctx, mqtt.PresenceTopic(other), 1, true, []byte("online")); err != nil {
		t.Fatalf("publish retained presence: %v", err)
	}
	t.Cleanup(func() { // an empty retained message clears it
		_ = env.bus.Publish(context.Background(), mqtt.PresenceTopic(other), 1, true, nil)
	})
	in := newInbox()
	c := mustDial(t, pahoOptions(env.addr, me, clientTLS(env.ca.CAPool(), ptr(env.addNode(t, me))), in))
	subscribe(t, c, mqtt.DesiredTopic(other), mqtt.Prefix+"/nodes/+/desired", "#", mqtt.Prefix+"/#",
		mqtt.WatchPrefix+"#", mqtt.Prefix+"/nodes/"+other+"/#", mqtt.NodeSubtree(me)+"#")
	busPublish(t, env.bus, mqtt.DesiredTopic(other), 1, "for-other")
	busPublish(t, env.bus, mqtt.RPCRequestTopic(other), 1, "rpc-for-other")
	busPublish(t, env.bus, mqtt.WatchTopic("pods", "default", "p"), 1, "watch")
	busPublish(t, env.bus, mqtt.DesiredTopic(me), 1, "end")
	only(t, "node received", in.waitFor(t, mqtt.DesiredTopic(me)+" end"), mqtt.DesiredTopic(me)+" end")
}

func testNodeWritesOnlyOwnSubtree(t *testing.T, env *brokerEnv) {
	me, other := uniq("pi-a"), uniq("pi-b")
	server := newInbox()
	if err := env.bus.Subscribe(mqtt.Prefix+"/#", 1, server.add); err != nil {
		t.Fatalf("bus subscribe: %v", err)
	}
	otherIn := newInbox()
	oc := mustDial(t, pahoOptions(env.addr, other, clientTLS(env.ca.CAPool(), ptr(env.addNode(t, other))), otherIn))
	subscribe(t, oc, mqtt.NodeSubtree(other)+"#")
	myCert := env.addNode(t, me)
	c := mustDial(t, pahoOptions(env.addr, me, clientTLS(env.ca.CAPool(), &myCert), nil))
	for _, topic := range []string{mqtt.DesiredTopic(other), mqtt.StatusTopic(other), mqtt.WatchTopic("pods", "default", "p")} {
		publish(t, c, topic, 0, "forged")
	}
	publish(t, c, mqtt.AckTopic(other), 1, "forged") // the embedded broker drops an MQTT 3.1.1 client for this
	env.settle(t, me)
	c = mustDial(t, pahoOptions(env.addr, me, clientTLS(env.ca.CAPool(), &myCert), nil))
	publish(t, c, mqtt.StatusTopic(me), 1, "end")
	only(t, "server received", withPayload(server.waitFor(t, mqtt.StatusTopic(me)+" end"), "forged", "end"),
		mqtt.StatusTopic(me)+" end")
	busPublish(t, env.bus, mqtt.DesiredTopic(other), 1, "end-other")
	only(t, "other node received", otherIn.waitFor(t, mqtt.DesiredTopic(other)+" end-other"),
		mqtt.DesiredTopic(other)+" end-other")
}

// withPayload keeps the messages ("topic payload") with one of payloads:
// a server-wide subscriber also sees what earlier tests left behind.
func withPayload(msgs []string, payloads ...string) []string {
	var out []string
	for _, m := range msgs {
		if i := strings.LastIndexByte(m, ' '); i >= 0 && slices.Contains(payloads, m[i+1:]) {
			out = append(out, m)
		}
	}
	return out
}

func ptr(c tls.Certificate) *tls.Certificate { return &c }
