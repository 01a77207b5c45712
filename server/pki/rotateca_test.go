package pki

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bundleOf parses every certificate of a PEM bundle.
func bundleOf(t testing.TB, data []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for rest := data; ; {
		c, err := parseCertPEM(rest)
		if err != nil {
			return out
		}
		out = append(out, c)
		i := strings.Index(string(rest), "-----END CERTIFICATE-----")
		rest = rest[i+len("-----END CERTIFICATE-----"):]
	}
}

// clientCertOf issues a client certificate from p's signing CA and checks
// that pool verifies it.
func verifiesClient(t testing.TB, p *PKI, pool *x509.CertPool) error {
	t.Helper()
	certPEM, _, err := p.NewClientCert("system:node:pi", []string{"system:nodes"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := parseCertPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return err
}

// Step 1: the next CA is trusted for client certificates and handed out in
// the bundle, while the old one keeps signing and naming the cluster.
func TestRotateCAStepOneTrustsBoth(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := mustLoad(t, dir, testConfig(now))
	servingBefore := serial(t, dir, "serving")
	if err := RotateCA(dir, now); err != nil {
		t.Fatalf("RotateCA: %v", err)
	}
	if err := RotateCA(dir, now); err == nil || !strings.Contains(err.Error(), "already under way") {
		t.Errorf("second RotateCA: got %v, want a refusal", err)
	}
	next := readCert(t, filepath.Join(dir, NextCA+".crt"))
	if next.MaxPathLen != 1 || next.MaxPathLenZero {
		t.Errorf("new CA path length: got %d (zero %v), want 1", next.MaxPathLen, next.MaxPathLenZero)
	}
	p := mustLoad(t, dir, testConfig(now))
	if p.CAHash() != old.CAHash() || string(p.CACertPEM()) != string(old.CACertPEM()) {
		t.Error("step 1 changed the CA that /cacerts and the tokens name")
	}
	if got := serial(t, dir, "serving"); got != servingBefore {
		t.Error("step 1 issued the serving certificate again")
	}
	b := bundleOf(t, p.BundlePEM())
	if len(b) != 2 || !b[0].Equal(old.caCert) || !b[1].Equal(next) {
		t.Fatalf("bundle: got %d CAs, want the old one then the next", len(b))
	}
	nextOnly := &PKI{dir: dir, cfg: p.cfg}
	nextOnly.cfg.setDefaults()
	kp, ok, err := nextOnly.readPair(NextCA)
	if !ok || err != nil {
		t.Fatalf("read ca-next: %v", err)
	}
	if err := nextOnly.useCA(kp.certPEM, kp.keyPEM); err != nil {
		t.Fatal(err)
	}
	if err := verifiesClient(t, nextOnly, p.CAPool()); err != nil {
		t.Errorf("a client certificate of the next CA: %v, want it trusted", err)
	}
	if !p.Rotating() {
		t.Error("Rotating: false during step 1")
	}
}

// --finish: the next CA signs, the old one stays trusted for client
// certificates as ca-previous, and the start issues the serving and admin
// certificates from the new CA.
func TestFinishRotateCA(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := mustLoad(t, dir, testConfig(now))
	if _, err := FinishRotateCA(dir, now); err == nil || !strings.Contains(err.Error(), "no CA rotation under way") {
		t.Errorf("FinishRotateCA without a rotation: got %v, want a refusal", err)
	}
	if err := RotateCA(dir, now); err != nil {
		t.Fatal(err)
	}
	next := readCert(t, filepath.Join(dir, NextCA+".crt"))
	backup, err := FinishRotateCA(dir, now)
	if err != nil {
		t.Fatalf("FinishRotateCA: %v", err)
	}
	for _, f := range []string{"serving.crt", "client-admin.key"} {
		if _, err := os.Stat(filepath.Join(backup, f)); err != nil {
			t.Errorf("%s not set aside in %s: %v", f, backup, err)
		}
	}
	p := mustLoad(t, dir, testConfig(now))
	if !p.caCert.Equal(next) {
		t.Fatal("ca.crt after --finish is not the new CA")
	}
	for _, name := range []string{"serving", "client-admin"} {
		if err := readCert(t, filepath.Join(dir, name+".crt")).CheckSignatureFrom(next); err != nil {
			t.Errorf("%s after --finish: %v, want it signed by the new CA", name, err)
		}
	}
	if err := verifiesClient(t, old, p.CAPool()); err != nil {
		t.Errorf("a node certificate of the old CA after --finish: %v, want it still trusted", err)
	}
	b := bundleOf(t, p.BundlePEM())
	if len(b) != 2 || !b[0].Equal(next) || !b[1].Equal(old.caCert) {
		t.Fatalf("bundle after --finish: got %d CAs, want the new one then the previous", len(b))
	}
	if p.Rotating() {
		t.Error("Rotating: true after --finish")
	}
}

// A --finish cut short between its renames: a start refuses to make a new
// CA (which would cut off every node), and running --finish again ends it.
func TestFinishRotateCACutShort(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	mustLoad(t, dir, testConfig(now))
	if err := RotateCA(dir, now); err != nil {
		t.Fatal(err)
	}
	next := readCert(t, filepath.Join(dir, NextCA+".crt"))
	if err := movePair(filepath.Join(dir, "ca"), filepath.Join(dir, PreviousCA)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, testConfig(now)); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("Load after a cut-short finish: got %v, want a refusal", err)
	}
	if _, err := FinishRotateCA(dir, now); err != nil {
		t.Fatalf("FinishRotateCA again: %v", err)
	}
	if p := mustLoad(t, dir, testConfig(now)); !p.caCert.Equal(next) {
		t.Error("ca.crt after the repeated finish is not the new CA")
	}
}
