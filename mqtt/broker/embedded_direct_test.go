package broker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"net"
	"sync"
	"testing"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/bramble-edge/bramble/mqtt"
)

// sinkConn is a client connection that keeps count of what is written.
type sinkConn struct {
	net.Conn // nil: only Write, Close and the addresses are used
	mu       sync.Mutex
	writes   int
}

func (c *sinkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return len(p), nil
}

func (c *sinkConn) Close() error         { return nil }
func (c *sinkConn) RemoteAddr() net.Addr { return &net.TCPAddr{} }

func (c *sinkConn) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// bareBroker is a broker that is never started: its inline Bus and mochi's
// client and topic tables work without a listener.
func bareBroker(t testing.TB) *Broker {
	t.Helper()
	b, err := New(Config{TLS: &tls.Config{Certificates: []tls.Certificate{{}}, ClientCAs: x509.NewCertPool()}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// session puts a connected MQTT 3.1.1 client with the given identity key
// into mochi's tables, subscribed to filter at QoS 1, as a CONNECT and a
// SUBSCRIBE would (the ACL check of the subscription left out).
func session(b *Broker, clientID, identityKey, filter string) (*mochi.Client, *sinkConn) {
	conn := &sinkConn{}
	cl := b.server.NewClient(conn, "test", clientID, false)
	cl.Properties.ProtocolVersion = 4
	cl.Properties.Username = []byte(identityKey)
	cl.State.Inflight.ResetReceiveQuota(int32(b.server.Options.Capabilities.ReceiveMaximum)) // as ParseConnect does
	sub := packets.Subscription{Filter: filter, Qos: 1}
	b.server.Clients.Add(cl)
	b.server.Topics.Subscribe(clientID, sub)
	cl.State.Subscriptions.Add(filter, sub)
	return cl, conn
}

// TestNodeDeliveryChecksACL: the delivery's own ACL check still applies
// on the direct path: a session subscribed to a node's topic without being
// that node gets nothing, not even an in-flight entry.
func TestNodeDeliveryChecksACL(t *testing.T) {
	for _, tc := range []struct {
		name, identity string
		want           bool
	}{
		{"the node", "node:pi-1", true},
		{"another node", "node:pi-2", false},
		{"a viewer", "viewer:dash", false},
		{"no identity", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bareBroker(t)
			cl, conn := session(b, "pi-1", tc.identity, mqtt.DesiredTopic("pi-1"))
			if err := b.Bus().Publish(context.Background(), mqtt.DesiredTopic("pi-1"), 1, false, []byte("x")); err != nil {
				t.Fatal(err)
			}
			got := conn.count() == 1 && cl.State.Inflight.Len() == 1
			if got != tc.want || (!tc.want && (conn.count() != 0 || cl.State.Inflight.Len() != 0)) {
				t.Fatalf("writes %d, in flight %d; want delivered %v", conn.count(), cl.State.Inflight.Len(), tc.want)
			}
		})
	}
}

// TestNodeDeliveryAllocations: a publish to a node's session allocates
// only the packet's encoding and its in-flight entry, not mochi's
// subscriber lookup and packet copies (18 allocations per publish before the encoding).
func TestNodeDeliveryAllocations(t *testing.T) {
	b := bareBroker(t)
	cl, conn := session(b, "pi-1", "node:pi-1", mqtt.DesiredTopic("pi-1"))
	bus, ctx, topic := b.Bus(), context.Background(), mqtt.DesiredTopic("pi-1")
	payload := make([]byte, 600)
	allocs := testing.AllocsPerRun(200, func() {
		if err := bus.Publish(ctx, topic, 1, false, payload); err != nil {
			t.Fatal(err)
		}
		for _, pk := range cl.State.Inflight.GetAll(false) { // as the node's PUBACKs would
			cl.State.Inflight.Delete(pk.PacketID)
		}
	})
	if conn.count() < 200 {
		t.Fatalf("%d writes for 201 publishes", conn.count())
	}
	const most = 8 // GetAll's slice, the encoding buffer and its growth, the in-flight map
	if allocs > most {
		t.Fatalf("%.1f allocations per publish and acknowledgement, want <= %d", allocs, most)
	}
	t.Logf("%.1f allocations per publish and acknowledgement", allocs)
}
