package logs_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	agentlogs "github.com/bramble-edge/bramble/agent/logs"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/pki"
)

const waitLong = 15 * time.Second

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// cluster is a real embedded broker with a real CA, the server's Bus, and
// nodes connected as their agents would be.
type cluster struct {
	ca   *pki.PKI
	addr string
	bus  mqtt.Bus
}

func newCluster(t testing.TB) *cluster {
	t.Helper()
	ca, err := pki.Load(filepath.Join(t.TempDir(), "tls"), pki.Config{SANs: []string{"127.0.0.1"}, Logger: quiet()})
	if err != nil {
		t.Fatalf("pki.Load: %v", err)
	}
	b, err := broker.New(broker.Config{Addr: "127.0.0.1:0", TLS: ca.ServingTLSConfig(), Logger: quiet()})
	if err != nil {
		t.Fatalf("NewBroker: %v", err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatalf("broker Start: %v", err)
	}
	t.Cleanup(func() { _ = b.Stop() })
	bus := b.Bus()
	t.Cleanup(func() { _ = bus.Close() })
	return &cluster{ca: ca, addr: b.Addr().String(), bus: bus}
}

// node is an agent's log side: a Handler behind a paho client holding the
// node's certificate, subscribed to its rpc/req topic.
type node struct {
	name    string
	dataDir string
	h       *agentlogs.Handler
	pc      paho.Client
}

func (c *cluster) addNode(t testing.TB, name string) *node {
	t.Helper()
	certPEM, keyPEM, err := c.ca.NewClientCert(join.NodeUserPrefix+name, []string{join.NodeGroup}, time.Hour)
	if err != nil {
		t.Fatalf("NewClientCert: %v", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	n := &node{name: name, dataDir: t.TempDir()}
	n.h = agentlogs.NewHandler(agentlogs.Config{PodLogDir: n.dataDir, Node: name, Logger: quiet(), Poll: 20 * time.Millisecond})
	t.Cleanup(n.h.Close)
	tlsCfg := &tls.Config{RootCAs: c.ca.CAPool(), Certificates: []tls.Certificate{pair}, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	o := paho.NewClientOptions().AddBroker("tls://" + c.addr).SetClientID(name).SetTLSConfig(tlsCfg).
		SetCleanSession(true).SetProtocolVersion(4).SetOrderMatters(true)
	n.pc = paho.NewClient(o)
	if tok := n.pc.Connect(); !tok.WaitTimeout(waitLong) || tok.Error() != nil {
		t.Fatalf("node %s connect: %v", name, tok.Error())
	}
	t.Cleanup(func() { n.pc.Disconnect(0) })
	tok := n.pc.Subscribe(mqtt.RPCRequestTopic(name), 1, func(_ paho.Client, m paho.Message) {
		n.h.Handle(n, m.Topic(), m.Payload())
	})
	if !tok.WaitTimeout(waitLong) || tok.Error() != nil {
		t.Fatalf("node %s subscribe: %v", name, tok.Error())
	}
	return n
}

// Publish is the agent's publisher: QoS 1, waiting for the broker's ack.
func (n *node) Publish(ctx context.Context, topic string, qos byte, payload []byte) error {
	tok := n.pc.Publish(topic, qos, false, payload)
	select {
	case <-tok.Done():
		return tok.Error()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// logPath is where the runtime writes attempt's log of a container.
func (n *node) logPath(uid, container string, attempt int) string {
	return filepath.Join(n.dataDir, "default_p_"+uid, container, fmt.Sprintf("%d.log", attempt))
}

// syncBuffer is a Writer the test reads while StreamLogs writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", waitLong, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
