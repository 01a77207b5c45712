package join_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
)

// The CA bundle endpoint answers only a node with its current certificate,
// records the bundle the node says it holds, and the rollout check reads
// that record: a node holding another bundle keeps a rotation from
// finishing.
func TestCABundleRecordsWhatNodesHold(t *testing.T) {
	e := newRenewEnv(t, "pi-bundle")
	report := filepath.Join(t.TempDir(), join.BundleReportFile)
	bh, err := join.BundleHandler(join.BundleConfig{CA: e.pki, Certs: e.registry, ReportFile: report, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(bh)
	srv.TLS = e.pki.ServingTLSConfig()
	srv.StartTLS()
	defer srv.Close()
	bundle := e.pki.BundlePEM()
	if err := join.CheckBundleRollout(report, bundle); err == nil || !strings.Contains(err.Error(), "no node has reported") {
		t.Fatalf("rollout check before any report: got %v, want a refusal", err)
	}
	tc, err := e.creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	cas, err := nodejoin.FetchBundle(context.Background(), client, srv.URL, nil) // holding none of them
	if err != nil {
		t.Fatalf("FetchBundle: %v", err)
	}
	if err := join.CheckBundleRollout(report, bundle); err == nil || !strings.Contains(err.Error(), "[pi-bundle]") {
		t.Fatalf("rollout check with the node holding another bundle: got %v, want pi-bundle pending", err)
	}
	if _, err := nodejoin.FetchBundle(context.Background(), client, srv.URL, cas); err != nil {
		t.Fatal(err)
	}
	if err := join.CheckBundleRollout(report, bundle); err != nil {
		t.Fatalf("rollout check with the node holding the bundle: %v", err)
	}
	// A second node reports; after a restart of the server the first one
	// reports again, and the second one's report is not forgotten.
	other := nodeClient(t, e.cluster, "pi-other")
	if _, err := nodejoin.FetchBundle(context.Background(), other, srv.URL, cas); err != nil {
		t.Fatal(err)
	}
	again, err := join.BundleHandler(join.BundleConfig{CA: e.pki, Certs: e.registry, ReportFile: report, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = again
	if _, err := nodejoin.FetchBundle(context.Background(), client, srv.URL, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := nodejoin.FetchBundle(context.Background(), client, srv.URL, cas); err != nil {
		t.Fatal(err)
	}
	if err := join.CheckBundleRollout(report, bundle); err != nil {
		t.Fatalf("rollout check after a restart: %v", err)
	}
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: tc.Clone()}}
	anon.Transport.(*http.Transport).TLSClientConfig.Certificates = nil
	if _, err := nodejoin.FetchBundle(context.Background(), anon, srv.URL, cas); err == nil || !strings.Contains(err.Error(), "current certificate") {
		t.Fatalf("FetchBundle without a node certificate: got %v, want a refusal", err)
	}
}

// nodeClient is an HTTP client presenting a recorded certificate of node.
func nodeClient(t *testing.T, c *cluster, node string) *http.Client {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := signNode(t, c, node, key)
	keyDER, _ := x509.MarshalPKCS8PrivateKey(key)
	pair, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.pki.CAPool(), Certificates: []tls.Certificate{pair}}}}
}
