package broker_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// brokerEnv is a broker under test, embedded or external, with what the
// shared delivery and isolation tests need.
type brokerEnv struct {
	addr string
	ca   *testCA
	bus  mqtt.Bus // the server's Bus
	// addNode issues a certificate for node and makes the broker take it.
	addNode func(t testing.TB, node string) tls.Certificate
	// addViewer writes viewer credentials for name; it returns the directory.
	addViewer func(t testing.TB, name string) string
	// revoke makes the broker refuse node, its live sessions included.
	revoke func(t testing.TB, node string)
	// settle returns once the broker processed all that clientID sent
	// before it disconnected.
	settle func(t testing.TB, clientID string)
}

// certRegistry stands in for the server's NodeCertRegistry: one valid
// certificate serial per node.
type certRegistry struct {
	mu      sync.Mutex
	serials map[string]string
}

func (r *certRegistry) record(node string, cert tls.Certificate) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.serials[node] = cert.Leaf.SerialNumber.String()
}

func (r *certRegistry) revoke(node string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.serials, node)
}

func (r *certRegistry) check(node string, cert *x509.Certificate) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	serial, ok := r.serials[node]
	switch {
	case !ok:
		return fmt.Errorf("node %s was deleted; join again", node)
	case serial != cert.SerialNumber.String():
		return fmt.Errorf("certificate of node %s was replaced by a newer join", node)
	}
	return nil
}

// embedded is an embedded broker on a loopback port with a real CA.
type embedded struct {
	*brokerEnv
	broker *broker.Broker
	reg    *certRegistry
}

func newEmbedded(t testing.TB, tune func(*broker.Config)) *embedded {
	t.Helper()
	ca := newTestCA(t)
	reg := &certRegistry{serials: map[string]string{}}
	cfg := broker.Config{Addr: "127.0.0.1:0", TLS: ca.servingTLS(), CertCheck: reg.check, Logger: testLogger(t)}
	if tune != nil {
		tune(&cfg)
	}
	b, err := broker.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = b.Stop() })
	bus := b.Bus()
	t.Cleanup(func() { _ = bus.Close() })
	e := &embedded{broker: b, reg: reg}
	e.brokerEnv = &brokerEnv{addr: b.Addr().String(), ca: ca, bus: bus,
		addNode: func(t testing.TB, node string) tls.Certificate {
			cert := ca.nodeCert(t, node)
			reg.record(node, cert)
			return cert
		},
		addViewer: func(t testing.TB, name string) string { return viewerCredentials(t, ca, name) },
		revoke: func(_ testing.TB, node string) {
			reg.revoke(node)
			b.Revoke(node)
		},
		settle: func(t testing.TB, id string) {
			t.Helper()
			waitUntil(t, "session "+id+" closed", func() bool { return !b.SessionOpen(id) })
		},
	}
	return e
}

// viewerCredentials writes viewer credentials for name; it returns the
// directory.
func viewerCredentials(t testing.TB, ca *testCA, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := broker.CreateViewerCredentials(ca, name, dir, time.Hour); err != nil {
		t.Fatalf("CreateViewerCredentials: %v", err)
	}
	return dir
}
