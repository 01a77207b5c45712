// Package mqttdelivery tests MQTT delivery end to end with real parts: a
// real SQLite store, the real REST API and join endpoints on a TLS
// listener, node certificates from a real join, the publisher, node
// clients, with the embedded broker and with Debian's mosquitto as an
// external one.
package mqttdelivery

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
	"github.com/bramble-edge/bramble/server/publish"
)

// testBroker is a broker the test can kill and start again on the same
// address: mosquitto, or the embedded broker.
type testBroker interface {
	url() string
	kill()
	start()
}

// node is one joined node with its client and recording applier.
type node struct {
	name string
	rec  *recorder
	cl   *client.Client
	cfg  client.Config
}

func (n *node) connect(t testing.TB) {
	t.Helper()
	cl, err := client.Connect(context.Background(), n.cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.cl = cl
	t.Cleanup(cl.Close)
}

// TestDeliverySurvivesBrokerDropsAndServerRestart: while hundreds of
// objects change, the broker is killed and started again repeatedly (every
// connection and every queued message lost), one node's client is closed
// and started again holding nothing, another holding what it had (an
// agent's local cache), and the server (API and publisher) is restarted
// once with writes going on while no publisher runs. Every node must end
// with exactly the server's view of it, and no applier may ever see a revision
// twice or out of order.
func TestDeliverySurvivesBrokerDropsAndServerRestart(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		c := newCluster(t)
		e := newEmbedded(t, c)
		c.broker, c.newBus = e.url(), e.serverBus
		runDelivery(t, c, e)
	})
	t.Run("mosquitto", func(t *testing.T) {
		c := newCluster(t)
		ca, cert, key := c.brokerFiles()
		m := newMosquitto(t, ca, cert, key)
		c.broker = m.url()
		runDelivery(t, c, m)
	})
}

func runDelivery(t *testing.T, c *cluster, broker testBroker) {
	tuning := publish.Config{StallTimeout: 2 * time.Second, NodeQueue: 64, PublishTimeout: 2 * time.Second}
	c.startPublisher(tuning)
	t.Cleanup(c.stopPublisher)
	admin := newAdminClient(t, c)
	nodes := joinNodes(t, c, admin, 4)

	w := newWorkload(t, admin, names(nodes), 1)
	const steps = 500
	for i := range steps {
		w.step()
		time.Sleep(4 * time.Millisecond) // spread the writes over a few seconds
		switch i {
		case 50, 170, 330, 440: // the broker dies; writes go on without it
			broker.kill()
		case 80, 200, 360, 470:
			broker.start()
		case 250: // the server goes down; writes go on with no publisher
			c.stopPublisher()
		case 280:
			c.buildHandler()
			c.startPublisher(tuning)
		case 300: // an agent restarts: a new client with nothing held
			nodes[3].cl.Close()
		case 320:
			nodes[3].connect(t)
		case 380: // another restarts with its local cache
			nodes[2].cl.Close()
		case 400:
			nodes[2].cfg.Rev = nodes[2].rec.Rev()
			nodes[2].connect(t)
		}
	}
	t.Logf("%d writes through the API", w.writes)
	for _, n := range nodes {
		waitForView(t, admin, n, 45*time.Second)
	}
	for _, n := range nodes {
		applies, resyncs, violations := n.rec.stats()
		t.Logf("%s: %d applies, %d resyncs, %d objects at rev %d", n.name, applies, resyncs, len(n.rec.Versions()), n.cl.Rev())
		for _, v := range violations {
			t.Errorf("%s: %s", n.name, v)
		}
	}
}

func joinNodes(t testing.TB, c *cluster, admin *adminClient, count int) []*node {
	t.Helper()
	var out []*node
	for i := range count {
		n := &node{name: fmt.Sprintf("pi-%d", i), rec: newRecorder()}
		creds := c.join(admin, n.name)
		n.cfg = client.Config{Credentials: creds, Applier: n.rec, Logger: testLogger().With("node", n.name),
			GapWait: time.Second, HelloInterval: time.Second, KeepAlive: 2 * time.Second, MaxReconnectInterval: 300 * time.Millisecond}
		n.connect(t)
		out = append(out, n)
	}
	return out
}

func names(nodes []*node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.name)
	}
	return out
}

// waitForView waits until n's applier holds exactly what the API says the
// node's view is, and fails with the difference when it does not in time.
func waitForView(t testing.TB, admin *adminClient, n *node, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		want := admin.nodeView(n.name)
		got := n.rec.Versions()
		if maps.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: after %s the client holds %s, want %s (client at rev %d)", n.name, timeout,
				formatView(got), formatView(want), n.cl.Rev())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func formatView(v map[mqtt.ObjectRef]int64) string {
	keys := make([]mqtt.ObjectRef, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	s := "{"
	for _, k := range keys {
		s += fmt.Sprintf(" %s@%d", k, v[k])
	}
	return s + " }"
}
