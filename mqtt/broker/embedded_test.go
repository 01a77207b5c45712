package broker_test

import (
	"crypto/tls"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

func TestEmbeddedBrokerIsolation(t *testing.T) {
	env := newEmbedded(t, nil)
	runIsolationSuite(t, env.brokerEnv)
}

// TestEmbeddedRefusesAtConnect: the embedded broker refuses at CONNECT (or
// in the handshake) what mosquitto can only starve.
func TestEmbeddedRefusesAtConnect(t *testing.T) {
	env := newEmbedded(t, nil)
	roots := env.ca.CAPool()
	replaced := env.addNode(t, "pi-replaced")
	env.addNode(t, "pi-replaced") // a newer join
	revoked := env.addNode(t, "pi-revoked")
	env.reg.revoke("pi-revoked")
	viewer := env.ca.clientCert(t, "alice", broker.ViewerGroup)
	willOther := pahoOptions(env.addr, "pi-1", clientTLS(roots, ptr(env.addNode(t, "pi-1"))), nil)
	willOther.SetWill(mqtt.PresenceTopic("pi-2"), "offline", 1, true)
	willRetain := pahoOptions(env.addr, "pi-1", clientTLS(roots, ptr(env.addNode(t, "pi-1"))), nil)
	willRetain.SetWill(mqtt.StatusTopic("pi-1"), "x", 1, true)
	plain := pahoOptions(env.addr, "pi-1", nil, nil)
	plain.Servers[0].Scheme = "tcp"
	cases := map[string]*paho.ClientOptions{
		"no certificate":        pahoOptions(env.addr, "pi-1", clientTLS(roots, nil), nil),
		"no TLS":                plain,
		"other CA":              pahoOptions(env.addr, "pi-1", clientTLS(roots, ptr(newTestCA(t).nodeCert(t, "pi-1"))), nil),
		"node, wrong client ID": pahoOptions(env.addr, "pi-2", clientTLS(roots, ptr(env.addNode(t, "pi-1"))), nil),
		"node, empty client ID": pahoOptions(env.addr, "", clientTLS(roots, ptr(env.addNode(t, "pi-1"))), nil),
		"viewer, wrong ID":      pahoOptions(env.addr, "bob", clientTLS(roots, &viewer), nil),
		"revoked node":          pahoOptions(env.addr, "pi-revoked", clientTLS(roots, &revoked), nil),
		"replaced certificate":  pahoOptions(env.addr, "pi-replaced", clientTLS(roots, &replaced), nil),
		"node CN without group": pahoOptions(env.addr, "pi-1", clientTLS(roots, ptr(env.ca.clientCert(t, join.NodeUserPrefix+"pi-1"))), nil),
		"admin certificate":     pahoOptions(env.addr, "admin", clientTLS(roots, ptr(env.ca.clientCert(t, "admin", "system:masters"))), nil),
		"server identity":       pahoOptions(env.addr, broker.DefaultServerName, clientTLS(roots, ptr(env.ca.clientCert(t, broker.DefaultServerName, broker.ServerGroup))), nil),
		"will on another node":  willOther,
		"retained will":         willRetain,
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			if c, err := dial(t, o); err == nil {
				c.Disconnect(0)
				t.Fatalf("connect as %q: got admitted, want refused", o.ClientID)
			}
		})
	}
	t.Run("viewer", func(t *testing.T) {
		mustDial(t, pahoOptions(env.addr, "alice", clientTLS(roots, &viewer), nil))
	})
}

// TestEmbeddedRevokeDropsSession: Revoke ends the session of a revoked
// certificate at once and spares one opened with the node's newer
// certificate.
func TestEmbeddedRevokeDropsSession(t *testing.T) {
	env := newEmbedded(t, nil)
	connect := func(cert tls.Certificate, lost *atomic.Bool) paho.Client {
		o := pahoOptions(env.addr, "pi-1", clientTLS(env.ca.CAPool(), &cert), newInbox())
		o.SetConnectionLostHandler(func(paho.Client, error) { lost.Store(true) })
		return mustDial(t, o)
	}
	var lostOld, lostNew atomic.Bool
	old := env.addNode(t, "pi-1")
	connect(old, &lostOld)
	env.reg.revoke("pi-1")
	env.broker.Revoke("pi-1")
	waitUntil(t, "revoked session dropped", lostOld.Load)
	if _, err := dial(t, pahoOptions(env.addr, "pi-1", clientTLS(env.ca.CAPool(), &old), nil)); err == nil {
		t.Fatal("reconnect with the revoked certificate: admitted, want refused")
	}

	c := connect(env.addNode(t, "pi-1"), &lostNew) // joined again
	env.broker.Revoke("pi-1")                      // the registry reports the old certificate's end late
	env.broker.Revoke("pi-unknown")
	time.Sleep(deliveryGrace)
	if lostNew.Load() || !c.IsConnectionOpen() {
		t.Fatal("session with the current certificate: dropped by Revoke, want kept")
	}
}

// TestEmbeddedRetainsOnlyPresence: a node's retained message stays only on
// its presence topic.
func TestEmbeddedRetainsOnlyPresence(t *testing.T) {
	env := newEmbedded(t, nil)
	c := mustDial(t, pahoOptions(env.addr, "pi-1", clientTLS(env.ca.CAPool(), ptr(env.addNode(t, "pi-1"))), nil))
	for _, topic := range []string{mqtt.StatusTopic("pi-1"), mqtt.PresenceTopic("pi-1")} {
		if tok := c.Publish(topic, 1, true, "retained"); !tok.WaitTimeout(waitLong) || tok.Error() != nil {
			t.Fatalf("publish %s: %v", topic, tok.Error())
		}
	}
	in := newInbox()
	if err := env.bus.Subscribe(mqtt.NodeSubtree("pi-1")+"#", 1, in.add); err != nil {
		t.Fatal(err)
	}
	only(t, "retained messages", in.all(), mqtt.PresenceTopic("pi-1")+" retained")
}

func TestNewBrokerRefusesIncompleteTLS(t *testing.T) {
	ca := newTestCA(t)
	noCAs := ca.servingTLS()
	noCAs.ClientCAs = nil
	noCert := ca.servingTLS()
	noCert.Certificates = nil
	for name, cfg := range map[string]*tls.Config{"nil": nil, "no ClientCAs": noCAs, "no certificate": noCert} {
		_, err := broker.New(broker.Config{TLS: cfg})
		if err == nil || !strings.Contains(err.Error(), "TLS") {
			t.Errorf("%s: got %v, want an error about TLS", name, err)
		}
	}
	b, err := broker.New(broker.Config{Addr: "256.0.0.1:1", TLS: ca.servingTLS()})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "listen on 256.0.0.1:1") {
		t.Errorf("Start on a bad address: got %v, want a listen error naming it", err)
	}
	bus := b.Bus()
	_ = b.Stop()
	if err := bus.Publish(t.Context(), "a/b", 0, false, nil); !errors.Is(err, mqtt.ErrBusClosed) {
		t.Errorf("Publish after Stop: got %v, want ErrBusClosed", err)
	}
}

// waitUntil polls cond until it holds.
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
