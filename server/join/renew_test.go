package join_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
)

// renewEnv is the cluster of env_test.go with the renewal endpoint served
// on a listener of its own, and a node whose certificate is on record.
type renewEnv struct {
	*cluster
	srv   *httptest.Server
	creds *nodejoin.Credentials
}

func newRenewEnv(t *testing.T, node string) *renewEnv {
	t.Helper()
	c := newCluster(t)
	rh, err := join.RenewHandler(join.RenewConfig{CA: c.pki, Certs: c.registry, Logger: quiet(), CertValidity: time.Hour,
		MQTTAddresses: func() []string { return []string{"mqtts://127.0.0.1:8883"} }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(rh)
	srv.TLS = c.pki.ServingTLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := signNode(t, c, node, key)
	keyDER, _ := x509.MarshalPKCS8PrivateKey(key)
	creds := &nodejoin.Credentials{ServerURL: srv.URL, NodeName: node, CACertPEM: c.pki.CACertPEM(), CertPEM: certPEM,
		KeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), MQTTAddresses: []string{"mqtts://old:8883"}}
	return &renewEnv{cluster: c, srv: srv, creds: creds}
}

// signNode issues and records a certificate for node, as a join does.
func signNode(t *testing.T, c *cluster, node string, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: node}}, key)
	if err != nil {
		t.Fatal(err)
	}
	csr, _ := x509.ParseCertificateRequest(der)
	certPEM, err := c.pki.SignClientCert(csr, nodejoin.NodeUserPrefix+node, []string{nodejoin.NodeGroup}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := parseCert(certPEM)
	if err := c.registry.Record(context.Background(), node, cert); err != nil {
		t.Fatal(err)
	}
	return certPEM
}

func TestRenewGivesANewCertificateAndRetiresTheOld(t *testing.T) {
	e := newRenewEnv(t, "pi-renew")
	old, _ := e.creds.Certificate()
	next, err := nodejoin.Renew(context.Background(), e.creds, nil)
	if err != nil {
		t.Fatalf("Renew: %v", err)
	}
	cert, _ := next.Certificate()
	if cert.Subject.CommonName != "system:node:pi-renew" || cert.SerialNumber.Cmp(old.SerialNumber) == 0 {
		t.Errorf("renewed certificate CN=%q serial %x, want system:node:pi-renew and a new serial", cert.Subject.CommonName, cert.SerialNumber)
	}
	if string(next.KeyPEM) == string(e.creds.KeyPEM) {
		t.Error("renewal kept the old key; want a new one")
	}
	if next.MQTTAddresses[0] != "mqtts://127.0.0.1:8883" || next.ServerURL != e.creds.ServerURL {
		t.Errorf("renewed credentials: server %q, MQTT %v", next.ServerURL, next.MQTTAddresses)
	}
	if err := e.registry.Check("pi-renew", cert); err != nil {
		t.Errorf("new certificate: %v, want current", err)
	}
	if err := e.registry.Check("pi-renew", old); !errors.Is(err, join.ErrCertRevoked) {
		t.Errorf("old certificate: %v, want revoked", err)
	}
	// The old certificate cannot renew again.
	if _, err := nodejoin.Renew(context.Background(), e.creds, nil); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("renew with the replaced certificate: %v, want a refusal saying it was replaced", err)
	}
	if _, err := nodejoin.Renew(context.Background(), next, nil); err != nil {
		t.Errorf("renew with the renewed certificate: %v", err)
	}
}

func TestRenewRefusals(t *testing.T) {
	e := newRenewEnv(t, "pi-refused")
	node, _ := e.creds.TLSConfig()
	noCert := &tls.Config{RootCAs: e.pki.CAPool()}
	for _, tc := range []struct {
		name         string
		cfg          *tls.Config
		method, body string
		code         int
		want         string
	}{
		{"no client certificate", noCert, http.MethodPost, `{"csr":"x"}`, 401, "mutual TLS"},
		{"admin certificate", e.adminTLS(), http.MethodPost, `{"csr":"x"}`, 403, "not a node certificate"},
		{"GET", node, http.MethodGet, "", 405, "use POST"},
		{"empty csr", node, http.MethodPost, `{"csr":""}`, 400, "csr: required"},
		{"unknown field", node, http.MethodPost, `{"csr":"x","node":"other"}`, 400, "unknown field"},
		{"bad csr", node, http.MethodPost, `{"csr":"not pem"}`, 400, "csr:"},
	} {
		code, body := e.callAt(tc.cfg, tc.method, tc.body)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: got %d %s, want %d naming %q", tc.name, code, body, tc.code, tc.want)
		}
	}
	if err := e.registry.Revoke(context.Background(), "pi-refused"); err != nil {
		t.Fatal(err)
	}
	if _, err := nodejoin.Renew(context.Background(), e.creds, nil); err == nil || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("renew after the node was deleted: %v, want a refusal", err)
	}
}

func (e *renewEnv) callAt(cfg *tls.Config, method, body string) (int, string) {
	saved := e.cluster.srv
	e.cluster.srv = e.srv
	defer func() { e.cluster.srv = saved }()
	return e.call(cfg, method, nodejoin.RenewPath, body)
}

func FuzzDecodeRenewRequest(f *testing.F) {
	f.Add([]byte(`{"csr":"-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n"}`))
	f.Add([]byte(`{"csr":"","CSR":"x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		csr, err := join.DecodeRenewRequest(data)
		if err == nil && csr.CheckSignature() != nil {
			t.Fatalf("accepted a CSR whose signature does not verify: %q", data)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "csr") && !strings.HasPrefix(err.Error(), "request body") {
			t.Fatalf("error %q names neither the body nor the field", err)
		}
	})
}
