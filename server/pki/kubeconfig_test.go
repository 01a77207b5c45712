package pki

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/server/auth"
)

func TestWriteKubeconfig(t *testing.T) {
	p := mustLoad(t, t.TempDir(), testConfig(time.Now()))
	path := filepath.Join(t.TempDir(), "etc", "bramble", "bramble.yaml")
	if err := p.WriteKubeconfig(path, 0o640, "https://127.0.0.1:6443"); err != nil {
		t.Fatalf("WriteKubeconfig: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o640 {
		t.Errorf("mode: got %o, want 640", got)
	}
	kc, err := auth.LoadKubeconfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cluster, user, err := kc.Current()
	if err != nil {
		t.Fatalf("Current: %v", err)
	}
	if cluster.Name != "default" || user.Name != "default" || kc.CurrentContext != "default" {
		t.Errorf("names: got cluster %q user %q context %q, want all \"default\"", cluster.Name, user.Name, kc.CurrentContext)
	}
	if got := cluster.Cluster.Server; got != "https://127.0.0.1:6443" {
		t.Errorf("server: got %q, want https://127.0.0.1:6443", got)
	}
	if string(cluster.Cluster.CertificateAuthorityData) != string(p.CACertPEM()) {
		t.Error("certificate-authority-data differs from the CA")
	}
	pair, err := tls.X509KeyPair(user.User.ClientCertificateData, user.User.ClientKeyData)
	if err != nil {
		t.Fatalf("client certificate/key: %v", err)
	}
	if pair.Leaf.Subject.CommonName != "admin" {
		t.Errorf("client CN: got %q, want admin", pair.Leaf.Subject.CommonName)
	}

	// Rewriting tightens the mode of an existing file.
	if err := p.WriteKubeconfig(path, 0, "https://127.0.0.1:6443"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after rewrite with 0: got %o, want 600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	for _, key := range []string{"certificate-authority-data:", "client-certificate-data:", "client-key-data:", "current-context: default"} {
		if !strings.Contains(string(data), key) {
			t.Errorf("kubeconfig lacks %q:\n%s", key, data)
		}
	}
}

func TestWriteKubeconfigRejectsPlainURL(t *testing.T) {
	p := mustLoad(t, t.TempDir(), testConfig(time.Now()))
	err := p.WriteKubeconfig(filepath.Join(t.TempDir(), "k.yaml"), 0o600, "http://x:6443")
	if err == nil || !strings.Contains(err.Error(), "want https://") {
		t.Fatalf("got %v, want an error asking for https", err)
	}
}

// BenchmarkLoadFirstStart: CA, serving and admin certificates made from
// nothing (the first start of a server).
func BenchmarkLoadFirstStart(b *testing.B) {
	cfg := testConfig(time.Now())
	for b.Loop() {
		if _, err := Load(b.TempDir(), cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadRestart: everything read back and checked (every later start).
func BenchmarkLoadRestart(b *testing.B) {
	dir := b.TempDir()
	cfg := testConfig(time.Now())
	mustLoad(b, dir, cfg)
	for b.Loop() {
		if _, err := Load(dir, cfg); err != nil {
			b.Fatal(err)
		}
	}
}
