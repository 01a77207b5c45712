package mqttdelivery

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/apiserver"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/join"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/publish"
	"github.com/bramble-edge/bramble/server/rbac"
	"github.com/bramble-edge/bramble/server/registry"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testLogger logs to stderr when BRAMBLE_TEST_LOG is set (debugging).
func testLogger() *slog.Logger {
	if os.Getenv("BRAMBLE_TEST_LOG") == "" {
		return quiet()
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// cluster is the server half: a real SQLite store, the real REST API with
// its authenticator, node authorizer and join endpoints behind a TLS
// listener, and the MQTT publisher talking to the broker through a paho
// Bus. stopPublisher, buildHandler and startPublisher replace the API, the
// publisher and its broker connection with new instances on the same
// store, as a server restart would.
type cluster struct {
	t        testing.TB
	dir      string
	store    *datastore.SQLite
	pki      *pki.PKI
	registry *join.NodeCertRegistry
	tokens   *join.TokenStore
	handler  atomic.Pointer[http.Handler]
	srv      *httptest.Server
	broker   string

	pub *publish.Publisher
	bus mqtt.Bus
	// authn and authz are the API's authenticator and authorizer; views
	// the running publisher's relist handler (nil while it is stopped).
	authn auth.Authenticator
	authz auth.Authorizer
	views atomic.Pointer[http.Handler]
	// newBus connects the server side to the broker; nil dials it as an
	// external broker with broker.DialExternal.
	newBus func() mqtt.Bus
}

func newCluster(t testing.TB) *cluster {
	t.Helper()
	ctx := context.Background()
	c := &cluster{t: t, dir: t.TempDir()}
	var err error
	if c.pki, err = pki.Load(filepath.Join(c.dir, "tls"), pki.Config{Logger: quiet()}); err != nil {
		t.Fatal(err)
	}
	c.store, err = datastore.OpenSQLite(ctx, filepath.Join(c.dir, "db", "state.db"),
		datastore.SQLiteConfig{Logger: quiet(), CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.store.Close() })
	c.registry = join.NewNodeCertRegistry(c.store, join.NodeCertRegistryConfig{Logger: quiet()})
	if err := c.registry.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.registry.Stop)
	reg, err := registry.New(ctx, registry.Config{Store: c.store, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	c.tokens = join.NewTokenStore(c.store, reg.Client(), join.TokenStoreConfig{Logger: quiet()})
	c.buildHandler()
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*c.handler.Load()).ServeHTTP(w, r)
	}))
	c.srv.TLS = c.pki.ServingTLSConfig()
	c.srv.EnableHTTP2 = true
	c.srv.StartTLS()
	t.Cleanup(c.srv.Close)
	return c
}

// buildHandler makes a new API instance (and join endpoints) and serves it.
func (c *cluster) buildHandler() {
	c.t.Helper()
	authn := auth.NewAuthenticator(c.pki.CAPool(), nil, auth.WithNodeCertCheck(c.registry.Check))
	c.authn, c.authz = authn, rbac.New(rbac.NewIndex(), auth.NewNodeAuthorizer(apiserver.NewNodeGraph(c.store, nil)))
	api, err := apiserver.NewAPI(context.Background(), apiserver.APIConfig{Store: c.store, Authn: authn,
		Authz: c.authz, Log: quiet()})
	if err != nil {
		c.t.Fatal(err)
	}
	jh, err := join.Handler(join.HandlerConfig{Tokens: c.tokens, CA: c.pki, Certs: c.registry, Logger: quiet(),
		Passwords:     join.NewNodePasswords(api.Registry().Client(), c.registry),
		MQTTAddresses: func() []string { return []string{c.broker} }})
	if err != nil {
		c.t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, p := range join.Paths {
		mux.Handle(p, jh)
	}
	mux.Handle(mqtt.ViewPrefix, http.HandlerFunc(c.serveView))
	mux.Handle("/", api)
	var h http.Handler = mux
	c.handler.Store(&h)
}

// brokerFiles names what mosquitto needs: the CA, and a serving
// certificate signed by it (the API's, which names 127.0.0.1).
func (c *cluster) brokerFiles() (ca, cert, key string) {
	c.t.Helper()
	dir := filepath.Join(c.dir, "tls")
	return filepath.Join(dir, "ca.crt"), filepath.Join(dir, "serving.crt"), filepath.Join(dir, "serving.key")
}

// startPublisher connects a server Bus to the broker and starts a new
// publisher on the store.
func (c *cluster) startPublisher(tuning publish.Config) {
	c.t.Helper()
	if c.newBus != nil {
		c.bus = c.newBus()
	} else {
		c.bus = c.dialExternal()
	}
	tuning.Store, tuning.Bus, tuning.Logger = c.store, c.bus, testLogger()
	c.pub = publish.New(tuning)
	if err := c.pub.Start(context.Background()); err != nil {
		c.t.Fatal(err)
	}
	views := c.pub.ViewHandler(c.authn, c.authz)
	c.views.Store(&views)
}

// serveView routes the nodes' relists to the running publisher, as the
// server's mux does; while none runs they are told to come back.
func (c *cluster) serveView(w http.ResponseWriter, r *http.Request) {
	h := c.views.Load()
	if h == nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "publisher stopped", http.StatusServiceUnavailable)
		return
	}
	(*h).ServeHTTP(w, r)
}

func (c *cluster) stopPublisher() {
	if c.pub != nil {
		c.views.Store(nil)
		c.pub.Stop()
		c.bus.Close()
		c.pub, c.bus = nil, nil
	}
}

// dialExternal connects to an external broker as the server does with
// --mqtt-broker: broker.DialExternal with a server identity from the cluster CA.
func (c *cluster) dialExternal() mqtt.Bus {
	c.t.Helper()
	certPEM, keyPEM, err := c.pki.NewClientCert(broker.DefaultServerName, []string{broker.ServerGroup}, time.Hour)
	if err != nil {
		c.t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		c.t.Fatal(err)
	}
	bus, err := broker.DialExternal(context.Background(), broker.ExternalConfig{URL: c.broker, Logger: testLogger(),
		TLS: &tls.Config{RootCAs: c.pki.CAPool(), Certificates: []tls.Certificate{pair}}})
	if err != nil {
		c.t.Fatalf("dial the external broker: %v", err)
	}
	return bus
}

// join makes Node name and joins it with a fresh token over the real
// join endpoints, returning its credentials.
func (c *cluster) join(a *adminClient, name string) *nodejoin.Credentials {
	c.t.Helper()
	a.must("POST", "/api/v1/nodes", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"`+name+`"}}`)
	tok, err := c.tokens.Create(context.Background(), c.pki.CAHash(), time.Hour, "test")
	if err != nil {
		c.t.Fatal(err)
	}
	creds, err := nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: c.srv.URL, Token: tok.String(), NodeName: name})
	if err != nil {
		c.t.Fatalf("join %s: %v", name, err)
	}
	return creds
}
