package join_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/clock/clocktest"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/apiserver"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/join"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/rbac"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// cluster is a real bramble API server on a real SQLite store, with the
// join endpoints mounted ahead of it and node certificates checked against
// the registry, behind a real TLS listener.
type cluster struct {
	t        testing.TB
	dataDir  string
	pki      *pki.PKI
	store    *datastore.SQLite
	clock    *clocktest.Fake
	tokens   *join.TokenStore
	registry *join.NodeCertRegistry
	// passwords is what the join endpoint checks node passwords with.
	passwords *join.NodePasswords
	authn     auth.Authenticator
	srv       *httptest.Server
	kubecfg   string // admin kubeconfig

	mu       sync.Mutex
	requests []string // "METHOD /path" of every request, in order
}

type clusterOption func(*join.HandlerConfig)

func newCluster(t testing.TB, opts ...clusterOption) *cluster {
	t.Helper()
	ctx := context.Background()
	c := &cluster{t: t, dataDir: t.TempDir(), clock: clocktest.NewFake(time.Now())}
	var err error
	if c.pki, err = pki.Load(filepath.Join(c.dataDir, "server", "tls"), pki.Config{Logger: quiet()}); err != nil {
		t.Fatal(err)
	}
	c.store, err = datastore.OpenSQLite(ctx, filepath.Join(c.dataDir, "server", "db", "state.db"),
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
	c.authn = auth.NewAuthenticator(c.pki.CAPool(), nil, auth.WithNodeCertCheck(c.registry.Check))
	api, err := apiserver.NewAPI(ctx, apiserver.APIConfig{Store: c.store, Authn: c.authn, Authz: rbac.New(rbac.NewIndex(), auth.NewNodeAuthorizer(nil)), Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	c.tokens = join.NewTokenStore(c.store, api.Registry().Client(), join.TokenStoreConfig{Now: c.clock.Now, Logger: quiet()})
	c.passwords = join.NewNodePasswords(api.Registry().Client(), c.registry)
	hcfg := join.HandlerConfig{Tokens: c.tokens, CA: c.pki, Certs: c.registry, Passwords: c.passwords,
		Logger: quiet(), Now: c.clock.Now,
		MQTTAddresses: func() []string { return []string{"mqtts://127.0.0.1:8883"} }}
	for _, o := range opts {
		o(&hcfg)
	}
	jh, err := join.Handler(hcfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, p := range join.Paths {
		mux.Handle(p, jh)
	}
	mux.Handle("/", api)
	c.srv = httptest.NewUnstartedServer(c.recording(mux))
	c.srv.TLS = c.pki.ServingTLSConfig()
	c.srv.EnableHTTP2 = true
	c.srv.StartTLS()
	t.Cleanup(c.srv.Close)
	c.kubecfg = filepath.Join(t.TempDir(), "bramble.yaml")
	if err := c.pki.WriteKubeconfig(c.kubecfg, 0o600, c.srv.URL); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *cluster) recording(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.requests = append(c.requests, r.Method+" "+r.URL.Path)
		c.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// seen returns the requests received since the last call.
func (c *cluster) seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.requests
	c.requests = nil
	return out
}

// newToken stores a token with ttl and returns it in full.
func (c *cluster) newToken(ttl time.Duration) string {
	c.t.Helper()
	tok, err := c.tokens.Create(context.Background(), c.pki.CAHash(), ttl, "test")
	if err != nil {
		c.t.Fatal(err)
	}
	return tok.String()
}

// adminTLS is a client configuration presenting the admin certificate.
func (c *cluster) adminTLS() *tls.Config {
	certPEM, keyPEM := c.pki.AdminCertPEM()
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		c.t.Fatal(err)
	}
	return &tls.Config{RootCAs: c.pki.CAPool(), Certificates: []tls.Certificate{pair}}
}

// call sends one request with cfg and returns the code and body.
func (c *cluster) call(cfg *tls.Config, method, path, body string) (int, string) {
	c.t.Helper()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// createNode makes Node name as the admin.
func (c *cluster) createNode(name string) {
	c.t.Helper()
	code, body := c.call(c.adminTLS(), http.MethodPost, "/api/v1/nodes",
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"`+name+`"}}`)
	if code != http.StatusCreated {
		c.t.Fatalf("create node %s: got %d %s, want 201", name, code, body)
	}
}

func parseCert(certPEM []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}
