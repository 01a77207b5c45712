package join

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCA is a throw-away CA for testing the checks on what a server
// answers; the full exchange is tested against the real server in
// server/join.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t testing.TB) *testCA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key}
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// issue signs a client certificate CN=cn, O=org for pub.
func (ca *testCA) issue(t testing.TB, cn, org string, pub crypto.PublicKey) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn, Organization: []string{org}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, pub, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func (ca *testCA) pem() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw}))
}

func TestCredentialsFromChecksTheAnswer(t *testing.T) {
	ca, other := newTestCA(t), newTestCA(t)
	key := newKey(t)
	base, _ := url.Parse("https://server:6443")
	good := ca.issue(t, "system:node:pi-1", "system:nodes", key.Public())
	tests := []struct {
		name    string
		resp    Response
		wantErr string
	}{
		{"good", Response{Certificate: string(good), CA: ca.pem()}, ""},
		{"other CA answered", Response{Certificate: string(good), CA: other.pem()}, "not the CA certificate the token names"},
		{"signed by another CA", Response{Certificate: string(other.issue(t, "system:node:pi-1", "system:nodes", key.Public())), CA: ca.pem()}, "not signed by the cluster CA"},
		{"other node", Response{Certificate: string(ca.issue(t, "system:node:pi-2", "system:nodes", key.Public())), CA: ca.pem()}, `common name "system:node:pi-2", want "system:node:pi-1"`},
		{"no group", Response{Certificate: string(ca.issue(t, "system:node:pi-1", "x", key.Public())), CA: ca.pem()}, `want "system:nodes"`},
		{"other key", Response{Certificate: string(ca.issue(t, "system:node:pi-1", "system:nodes", newKey(t).Public())), CA: ca.pem()}, "not issued for this node's key"},
		{"garbage certificate", Response{Certificate: "nope", CA: ca.pem()}, "no PEM CERTIFICATE block"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			creds, err := credentialsFrom(&tc.resp, []*x509.Certificate{ca.cert}, base, "pi-1", key)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				if creds.NodeName != "pi-1" || creds.ServerURL != "https://server:6443" {
					t.Fatalf("got node %q server %q, want pi-1 https://server:6443", creds.NodeName, creds.ServerURL)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrRejected) {
				t.Fatalf("got %v, want an ErrRejected containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestCredentialsSaveLoad(t *testing.T) {
	ca := newTestCA(t)
	key := newKey(t)
	keyPEM, err := encodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	creds := &Credentials{ServerURL: "https://server:6443", NodeName: "pi-1", CACertPEM: []byte(ca.pem()),
		CertPEM: ca.issue(t, "system:node:pi-1", "system:nodes", key.Public()), KeyPEM: keyPEM,
		MQTTAddresses: []string{"mqtts://server:8883"}}
	dir := filepath.Join(t.TempDir(), "agent")
	if _, err := LoadCredentials(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("load before any join: got %v, want fs.ErrNotExist", err)
	}
	if err := creds.Save(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{".": 0o700, KeyFile: 0o600, CertFile: 0o644, CAFile: 0o644, InfoFile: 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: got mode %o, want %o", name, got, want)
		}
	}
	back, err := LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.NodeName != "pi-1" || back.ServerURL != creds.ServerURL || len(back.MQTTAddresses) != 1 ||
		string(back.KeyPEM) != string(keyPEM) || string(back.CertPEM) != string(creds.CertPEM) {
		t.Fatalf("got %+v, want what was saved", back)
	}
	cfg, err := back.TLSConfig()
	if err != nil || len(cfg.Certificates) != 1 || cfg.RootCAs == nil {
		t.Fatalf("TLSConfig: got %v, %v; want one certificate and the CA as root", cfg, err)
	}

	// A key that does not belong to the certificate is caught at load.
	otherPEM, _ := encodeKey(newKey(t))
	if err := os.WriteFile(filepath.Join(dir, KeyFile), otherPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCredentials(dir); err == nil || !strings.Contains(err.Error(), "private key does not match public key") {
		t.Errorf("load with a foreign key: got %v, want a key mismatch", err)
	}
}

func TestSaveRefusesInconsistentCredentials(t *testing.T) {
	ca := newTestCA(t)
	key := newKey(t)
	keyPEM, _ := encodeKey(key)
	creds := &Credentials{NodeName: "pi-2", CACertPEM: []byte(ca.pem()),
		CertPEM: ca.issue(t, "system:node:pi-1", "system:nodes", key.Public()), KeyPEM: keyPEM}
	dir := t.TempDir()
	if err := creds.Save(dir); err == nil || !strings.Contains(err.Error(), `want "system:node:pi-2"`) {
		t.Fatalf("got %v, want a refusal naming the node mismatch", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("got %d files written, want none", len(entries))
	}
}
