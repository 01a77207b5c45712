package broker_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/pki"
)

// waitLong bounds every wait for something that should happen; only a
// broken broker gets near it.
const waitLong = 15 * time.Second

// testLogger writes to the test log when -v is given, else nowhere.
func testLogger(t testing.TB) *slog.Logger {
	t.Helper()
	if !testing.Verbose() {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testCA is a real cluster CA in a temporary directory.
type testCA struct {
	*pki.PKI
	dir string
}

func newTestCA(t testing.TB) *testCA {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tls")
	p, err := pki.Load(dir, pki.Config{SANs: []string{"127.0.0.1", "localhost"}, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("pki.Load: %v", err)
	}
	return &testCA{PKI: p, dir: dir}
}

// servingTLS is the broker's TLS configuration from the CA.
func (ca *testCA) servingTLS() *tls.Config { return ca.ServingTLSConfig() }

// clientCert issues a client certificate CN=cn, O=groups.
func (ca *testCA) clientCert(t testing.TB, cn string, groups ...string) tls.Certificate {
	t.Helper()
	certPEM, keyPEM, err := ca.NewClientCert(cn, groups, time.Hour)
	if err != nil {
		t.Fatalf("NewClientCert(%q): %v", cn, err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatalf("X509KeyPair(%q): %v", cn, err)
	}
	return pair
}

func (ca *testCA) nodeCert(t testing.TB, node string) tls.Certificate {
	t.Helper()
	return ca.clientCert(t, join.NodeUserPrefix+node, join.NodeGroup)
}

// clientTLS is what a client presents: cert (none when empty) and trust in
// roots.
func clientTLS(roots *x509.CertPool, cert *tls.Certificate) *tls.Config {
	cfg := &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return cfg
}

// inbox collects messages from any number of goroutines.
type inbox struct {
	mu   sync.Mutex
	msgs []string // "topic payload"
	more chan struct{}
}

func newInbox() *inbox { return &inbox{more: make(chan struct{}, 1)} }

func (in *inbox) add(topic string, payload []byte) {
	in.mu.Lock()
	in.msgs = append(in.msgs, topic+" "+string(payload))
	in.mu.Unlock()
	select {
	case in.more <- struct{}{}:
	default:
	}
}

func (in *inbox) all() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.msgs)
}

// waitFor waits until msg was received and returns everything received.
func (in *inbox) waitFor(t testing.TB, msg string) []string {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		if got := in.all(); slices.Contains(got, msg) {
			return got
		}
		select {
		case <-in.more:
		case <-deadline:
			t.Fatalf("waited %s for %q; got %q", waitLong, msg, in.all())
		}
	}
}

// pahoOptions are a test client's options: no automatic reconnection, so
// a refused or dropped connection shows.
func pahoOptions(addr, clientID string, tlsCfg *tls.Config, in *inbox) *paho.ClientOptions {
	o := paho.NewClientOptions().AddBroker("tls://" + addr).SetClientID(clientID).
		SetTLSConfig(tlsCfg).SetCleanSession(true).SetAutoReconnect(false).
		SetConnectRetry(false).SetConnectTimeout(5 * time.Second).SetKeepAlive(30 * time.Second).
		SetProtocolVersion(4) // no silent fallback to MQTT 3.1 after a refusal
	if in != nil {
		o.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) { in.add(m.Topic(), m.Payload()) })
	}
	return o
}

// dial connects a paho client; the error is the broker's answer.
func dial(t testing.TB, o *paho.ClientOptions) (paho.Client, error) {
	t.Helper()
	c := paho.NewClient(o)
	tok := c.Connect()
	if !tok.WaitTimeout(waitLong) {
		return nil, errors.New("connect timed out")
	}
	if err := tok.Error(); err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Disconnect(0) })
	return c, nil
}

// mustDial is dial for clients that must get in.
func mustDial(t testing.TB, o *paho.ClientOptions) paho.Client {
	t.Helper()
	c, err := dial(t, o)
	if err != nil {
		t.Fatalf("connect %s: %v", o.ClientID, err)
	}
	return c
}

// subscribe subscribes c to filters (QoS 1) with the default handler and
// waits for the SUBACK, whatever it says.
func subscribe(t testing.TB, c paho.Client, filters ...string) {
	t.Helper()
	m := map[string]byte{}
	for _, f := range filters {
		m[f] = 1
	}
	tok := c.SubscribeMultiple(m, nil)
	if !tok.WaitTimeout(waitLong) || tok.Error() != nil {
		t.Fatalf("subscribe %q: %v", filters, tok.Error())
	}
}

// publish publishes and waits for the broker's acknowledgement (QoS 1) or
// the write (QoS 0); a refusal that drops the connection is not an error.
func publish(t testing.TB, c paho.Client, topic string, qos byte, payload string) {
	t.Helper()
	tok := c.Publish(topic, qos, false, payload)
	tok.WaitTimeout(5 * time.Second)
}

// busPublish publishes through the server's Bus and fails the test on error.
func busPublish(t testing.TB, bus mqtt.Bus, topic string, qos byte, payload string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	if err := bus.Publish(ctx, topic, qos, false, []byte(payload)); err != nil {
		t.Fatalf("bus publish %s: %v", topic, err)
	}
}

// only fails unless got holds exactly want, in any order.
func only(t testing.TB, what string, got []string, want ...string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Fatalf("%s: got %q, want only %q", what, got, want)
	}
}

func uniq(prefix string) string { return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1e9) }
