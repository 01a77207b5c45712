package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// testConfig is a Config with a fixed hostname, interfaces and clock.
func testConfig(now time.Time, sans ...string) Config {
	return Config{
		SANs:     sans,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now:      func() time.Time { return now },
		Hostname: func() (string, error) { return "Pi-Server", nil },
		InterfaceAddrs: func() ([]net.Addr, error) {
			return []net.Addr{
				&net.IPNet{IP: net.ParseIP("127.0.0.1"), Mask: net.CIDRMask(8, 32)},
				&net.IPNet{IP: net.ParseIP("192.168.1.50"), Mask: net.CIDRMask(24, 32)},
				&net.IPNet{IP: net.ParseIP("fd00::50"), Mask: net.CIDRMask(64, 128)},
				&net.IPNet{IP: net.ParseIP("fe80::1"), Mask: net.CIDRMask(64, 128)},
			}, nil
		},
	}
}

func mustLoad(t testing.TB, dir string, cfg Config) *PKI {
	t.Helper()
	p, err := Load(dir, cfg)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

func readCert(t testing.TB, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseCertPEM(data)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return c
}

func TestLoadCreatesCAAndFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "server", "tls")
	now := time.Unix(1_800_000_000, 0)
	p := mustLoad(t, dir, testConfig(now))

	modes := map[string]os.FileMode{
		"ca.crt": 0o644, "ca.key": 0o600, "serving.crt": 0o644, "serving.key": 0o600,
		"client-admin.crt": 0o644, "client-admin.key": 0o600,
	}
	for name, want := range modes {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("stat %s: %v", name, err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode: got %o, want %o", name, got, want)
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode: got %o, want 700", fi.Mode().Perm())
	}

	ca := readCert(t, filepath.Join(dir, "ca.crt"))
	if got, want := ca.Subject.CommonName, "bramble-ca@1800000000"; got != want {
		t.Errorf("CA CN: got %q, want %q", got, want)
	}
	if !ca.IsCA || !ca.BasicConstraintsValid {
		t.Errorf("CA: IsCA=%v BasicConstraintsValid=%v, want both true", ca.IsCA, ca.BasicConstraintsValid)
	}
	pub, ok := ca.PublicKey.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		t.Errorf("CA key: got %T, want ECDSA P-256", ca.PublicKey)
	}
	if got := ca.NotAfter.Sub(now); got < 9*365*24*time.Hour || got > 11*365*24*time.Hour {
		t.Errorf("CA validity: got %v, want about 10 years", got)
	}
	if !strings.Contains(string(p.CACertPEM()), "BEGIN CERTIFICATE") {
		t.Errorf("CACertPEM: got %q, want a PEM certificate", p.CACertPEM())
	}
	if len(p.CAHash()) != 64 {
		t.Errorf("CAHash: got %q, want 64 hex characters", p.CAHash())
	}
}

func TestServingCertNamesAndVerification(t *testing.T) {
	dir := t.TempDir()
	p := mustLoad(t, dir, testConfig(time.Now(), "bramble.example.com", "10.0.0.7"))
	leaf := readCert(t, filepath.Join(dir, "serving.crt"))

	wantDNS := []string{"bramble.example.com", "localhost", "pi-server"}
	if !slices.Equal(leaf.DNSNames, wantDNS) {
		t.Errorf("DNS SANs: got %v, want %v", leaf.DNSNames, wantDNS)
	}
	var ips []string
	for _, ip := range leaf.IPAddresses {
		ips = append(ips, ip.String())
	}
	wantIPs := []string{"10.0.0.7", "127.0.0.1", "192.168.1.50", "::1", "fd00::50"}
	if !slices.Equal(ips, wantIPs) {
		t.Errorf("IP SANs: got %v, want %v (no fe80:: link-local)", ips, wantIPs)
	}
	for _, name := range append(wantDNS, wantIPs...) {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: p.CAPool(), DNSName: name,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if err != nil {
			t.Errorf("verify serving certificate for %s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: p.CAPool(), DNSName: "other.example.com"}); err == nil {
		t.Error("verify for other.example.com: got nil error, want a name mismatch")
	}
	if got := p.ServingCertificate().SerialNumber; got.Cmp(leaf.SerialNumber) != 0 {
		t.Errorf("ServingCertificate serial: got %v, want %v", got, leaf.SerialNumber)
	}
}

func TestAdminCertIsClientCertUnderCA(t *testing.T) {
	dir := t.TempDir()
	p := mustLoad(t, dir, testConfig(time.Now()))
	c := readCert(t, filepath.Join(dir, "client-admin.crt"))
	if c.Subject.CommonName != "admin" || !slices.Equal(c.Subject.Organization, []string{"system:masters"}) {
		t.Errorf("admin subject: got CN=%q O=%v, want CN=admin O=[system:masters]", c.Subject.CommonName, c.Subject.Organization)
	}
	_, err := c.Verify(x509.VerifyOptions{Roots: p.CAPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil {
		t.Errorf("verify admin certificate: %v", err)
	}
}

func TestLoadRejectsBadSAN(t *testing.T) {
	_, err := Load(t.TempDir(), testConfig(time.Now(), "ok.example.com", "not_a name"))
	if err == nil || !strings.Contains(err.Error(), `--tls-san "not_a name"`) {
		t.Fatalf("Load with bad SAN: got %v, want an error naming --tls-san \"not_a name\"", err)
	}
}
