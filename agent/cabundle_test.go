package agent

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/pki"
)

// bundleEnv is a node of a real CA, a server answering the CA bundle it is
// given, and the node's renewal (which fetches the bundle).
type bundleEnv struct {
	tlsDir string
	mu     sync.Mutex
	bundle []byte
	ren    *renewal
}

func newBundleEnv(t *testing.T) *bundleEnv {
	t.Helper()
	e := &bundleEnv{tlsDir: filepath.Join(t.TempDir(), "tls")}
	cfg := pki.Config{SANs: []string{"127.0.0.1"}, Logger: slog.New(slog.DiscardHandler)}
	p, err := pki.Load(e.tlsDir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.bundle = p.BundlePEM()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != join.CABundlePath || len(r.TLS.PeerCertificates) == 0 {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		_, _ = w.Write(e.bundle)
	}))
	srv.TLS = p.ServingTLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	certPEM, keyPEM, err := p.NewClientCert("system:node:pi-ca", []string{"system:nodes"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	creds := &join.Credentials{ServerURL: srv.URL, NodeName: "pi-ca", CACertPEM: p.CACertPEM(), CertPEM: certPEM, KeyPEM: keyPEM}
	agentDir := t.TempDir()
	if err := creds.Save(agentDir); err != nil {
		t.Fatal(err)
	}
	if e.ren, err = newRenewal(agentDir, creds, slog.New(slog.DiscardHandler), time.Now); err != nil {
		t.Fatal(err)
	}
	return e
}

// serve makes the server answer bundle.
func (e *bundleEnv) serve(t *testing.T, bundle []byte) {
	t.Helper()
	e.mu.Lock()
	e.bundle = bundle
	e.mu.Unlock()
}

func (e *bundleEnv) savedCAs(t *testing.T) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(e.ren.dir, join.CAFile))
	if err != nil {
		t.Fatal(err)
	}
	cas, err := join.ParseBundle(raw)
	if err != nil {
		t.Fatal(err)
	}
	return len(cas)
}

// The agent takes the bundle of a rotation (saved and held), refuses one
// without the CA of its certificate, and renews at once once its
// certificate's CA no longer signs.
func TestBundleTakenAndRenewalKicked(t *testing.T) {
	e := newBundleEnv(t)
	ctx := context.Background()
	if changed, err := e.ren.bundleOnce(ctx); changed || err != nil {
		t.Fatalf("bundle before a rotation: changed %v, %v; want nothing new", changed, err)
	}
	if err := pki.RotateCA(e.tlsDir, time.Now()); err != nil {
		t.Fatal(err)
	}
	step1, _ := pki.DiskBundlePEM(e.tlsDir)
	nextOnly, _ := os.ReadFile(filepath.Join(e.tlsDir, pki.NextCA+".crt"))
	e.serve(t, nextOnly)
	if _, err := e.ren.bundleOnce(ctx); err == nil || !strings.Contains(err.Error(), "does not hold the CA this node trusts") {
		t.Fatalf("bundle without the node's CA: got %v, want a refusal", err)
	}
	e.serve(t, step1)
	if changed, err := e.ren.bundleOnce(ctx); !changed || err != nil {
		t.Fatalf("bundle of the rotation: changed %v, %v; want it taken", changed, err)
	}
	if got, kicked := e.savedCAs(t), e.ren.kicked(); got != 2 || len(e.ren.roots.CAs()) != 2 || kicked {
		t.Fatalf("after step 1: %d CAs saved, %d held, kicked %v; want 2, 2, no renewal", got, len(e.ren.roots.CAs()), kicked)
	}
	if _, err := pki.FinishRotateCA(e.tlsDir, time.Now()); err != nil {
		t.Fatal(err)
	}
	finished, _ := pki.DiskBundlePEM(e.tlsDir)
	e.serve(t, finished)
	if changed, err := e.ren.bundleOnce(ctx); changed || err != nil {
		t.Fatalf("the same CAs in another order: changed %v, %v; want nothing new", changed, err)
	}
	if !e.ren.kicked() {
		t.Error("a certificate of the previous CA after --finish: no renewal asked for")
	}
}
