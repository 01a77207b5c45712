package mqttdelivery

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
	"github.com/bramble-edge/bramble/server/publish"
)

// TestDeliveryWithLostAcks: agents send their acks at QoS 0, so an ack can
// be lost. Here the server's side of the embedded broker loses half of
// them while objects change, then the last Event to each node it goes to is
// lost as well (as a broker dropping a message would) and every ack from
// then on too. No later Event shows the nodes a gap and their idle hello is
// an hour away: only the publisher's stall watch, which reads a missing ack
// as a node left behind, can bring them up to date. Every node must end
// with exactly the server's view, having seen nothing twice or out of order.
func TestDeliveryWithLostAcks(t *testing.T) {
	c := newCluster(t)
	e := newEmbedded(t, c)
	lossy := &lossyBus{rnd: rand.New(rand.NewSource(7))}
	c.broker = e.url()
	c.newBus = func() mqtt.Bus { lossy.Bus = e.serverBus(); return lossy }
	c.startPublisher(publish.Config{StallTimeout: time.Second, PublishTimeout: 2 * time.Second})
	t.Cleanup(c.stopPublisher)
	admin := newAdminClient(t, c)
	nodes := joinQuietNodes(t, c, admin, 3)
	w := newWorkload(t, admin, names(nodes), 3)
	lossy.ackLoss.Store(50)
	for range 150 {
		w.step()
		time.Sleep(2 * time.Millisecond)
	}
	lossy.ackLoss.Store(100)
	lossy.dropDesired.Store(true)
	for lossy.dropped.Load() == 0 {
		w.step()
	}
	time.Sleep(200 * time.Millisecond) // the rest of that write's Events
	lossy.dropDesired.Store(false)
	t.Logf("%d writes; %d acks and %d Events lost", w.writes, lossy.acksLost.Load(), lossy.dropped.Load())
	for _, n := range nodes {
		waitForView(t, admin, n, 20*time.Second)
		if _, _, violations := n.rec.stats(); len(violations) > 0 {
			t.Errorf("%s: %v", n.name, violations)
		}
	}
}

// lossyBus is the server's handle on the broker, losing some of what
// passes: ACKs (not HELLOs) on their way in, ackLoss per cent of them, and
// every desired Event on its way out while dropDesired is set.
type lossyBus struct {
	mqtt.Bus
	ackLoss     atomic.Int32
	dropDesired atomic.Bool
	dropped     atomic.Int64
	acksLost    atomic.Int64

	mu  sync.Mutex
	rnd *rand.Rand
}

func (l *lossyBus) Publish(ctx context.Context, topic string, qos byte, retained bool, payload []byte) error {
	if node, ok := mqtt.NodeOfTopic(topic); ok && topic == mqtt.DesiredTopic(node) && l.dropDesired.Load() {
		l.dropped.Add(1)
		return nil // handed over, then lost
	}
	return l.Bus.Publish(ctx, topic, qos, retained, payload)
}

func (l *lossyBus) Subscribe(filter string, qos byte, handler func(topic string, payload []byte)) error {
	return l.Bus.Subscribe(filter, qos, func(topic string, payload []byte) {
		if l.isApplied(topic, payload) && l.loseAck() {
			l.acksLost.Add(1)
			return
		}
		handler(topic, payload)
	})
}

func (l *lossyBus) isApplied(topic string, payload []byte) bool {
	node, ok := mqtt.NodeOfTopic(topic)
	if !ok || topic != mqtt.AckTopic(node) {
		return false
	}
	ack, err := mqtt.DecodeAck(payload)
	return err == nil && ack.Type == mqtt.AckApplied
}

func (l *lossyBus) loseAck() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rnd.Intn(100) < int(l.ackLoss.Load())
}

// joinQuietNodes joins count nodes whose idle hello is an hour away, so
// that only the publisher's stall watch can notice a lost last Event.
func joinQuietNodes(t testing.TB, c *cluster, admin *adminClient, count int) []*node {
	t.Helper()
	var out []*node
	for i := range count {
		n := &node{name: fmt.Sprintf("pi-%d", i), rec: newRecorder()}
		n.cfg = client.Config{Credentials: c.join(admin, n.name), Applier: n.rec, Logger: testLogger().With("node", n.name),
			GapWait: time.Second, HelloInterval: time.Hour, KeepAlive: 2 * time.Second, MaxReconnectInterval: 300 * time.Millisecond}
		n.connect(t)
		out = append(out, n)
	}
	return out
}
