package join_test

import (
	"context"
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
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: tc.Clone()}}
	anon.Transport.(*http.Transport).TLSClientConfig.Certificates = nil
	if _, err := nodejoin.FetchBundle(context.Background(), anon, srv.URL, cas); err == nil || !strings.Contains(err.Error(), "current certificate") {
		t.Fatalf("FetchBundle without a node certificate: got %v, want a refusal", err)
	}
}
