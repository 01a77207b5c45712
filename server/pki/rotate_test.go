package pki

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Rotate sets aside only the named certificates; the next Load issues
// them again under the same CA and keeps the others.
func TestRotateReissuesOnlyTheNamedService(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	first := mustLoad(t, dir, testConfig(now))
	servingBefore, adminBefore := serial(t, dir, "serving"), serial(t, dir, "client-admin")
	backup, err := Rotate(dir, []string{"api-server"}, now)
	if err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	if _, err := os.Stat(filepath.Join(backup, "serving.crt")); err != nil {
		t.Errorf("the old serving certificate is not in %s: %v", backup, err)
	}
	second := mustLoad(t, dir, testConfig(now))
	if second.CAHash() != first.CAHash() {
		t.Error("Rotate changed the CA")
	}
	if serial(t, dir, "serving") == servingBefore {
		t.Error("serving certificate kept after rotating api-server")
	}
	if serial(t, dir, "client-admin") != adminBefore {
		t.Error("admin certificate replaced by a rotation of api-server only")
	}
	if _, err := Rotate(dir, []string{"kubelet"}, now); err == nil || !strings.Contains(err.Error(), `--service "kubelet"`) {
		t.Errorf("Rotate of an unknown service: %v, want an error naming --service", err)
	}
	if _, err := Rotate(t.TempDir(), nil, now); err == nil || !strings.Contains(err.Error(), "no cluster CA") {
		t.Errorf("Rotate of a dir without a CA: %v", err)
	}
}

// A short-lived certificate is backdated by a tenth of its life, not an
// hour, so its renewal point (two thirds into its life) lies ahead.
func TestShortLivedCertificateBackdate(t *testing.T) {
	now := time.Now()
	p := mustLoad(t, t.TempDir(), testConfig(now))
	certPEM, _, err := p.NewClientCert("system:node:pi", []string{"system:nodes"}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := parseCertPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	if got := now.Sub(cert.NotBefore); got > 4*time.Second {
		t.Errorf("30 s certificate backdated by %s, want 3 s", got)
	}
	renewAt := cert.NotBefore.Add(cert.NotAfter.Sub(cert.NotBefore) * 2 / 3)
	if !renewAt.After(now) {
		t.Errorf("renewal point %s is not after issue %s", renewAt, now)
	}
	year, _, _ := p.NewClientCert("system:node:pi", nil, 0)
	if c, _ := parseCertPEM(year); now.Sub(c.NotBefore) < 59*time.Minute {
		t.Errorf("a year's certificate backdated by %s, want an hour", now.Sub(c.NotBefore))
	}
}
