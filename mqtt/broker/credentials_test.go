package broker_test

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt/broker"
)

func TestCreateViewerCredentials(t *testing.T) {
	ca := newTestCA(t)
	dir := filepath.Join(t.TempDir(), "alice")
	if err := broker.CreateViewerCredentials(ca, "alice", dir, 48*time.Hour); err != nil {
		t.Fatalf("CreateViewerCredentials: %v", err)
	}
	modes := map[string]os.FileMode{".": 0o700 | os.ModeDir, broker.CredentialsCAFile: 0o644,
		broker.CredentialsCertFile: 0o644, broker.CredentialsKeyFile: 0o600}
	for f, want := range modes {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode() != want {
			t.Errorf("%s: got mode %v (%v), want %v", f, st.Mode(), err, want)
		}
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, broker.CredentialsCertFile), filepath.Join(dir, broker.CredentialsKeyFile))
	if err != nil {
		t.Fatalf("load written pair: %v", err)
	}
	subj := pair.Leaf.Subject
	if subj.CommonName != "alice" || !slices.Equal(subj.Organization, []string{broker.ViewerGroup}) {
		t.Errorf("subject: got CN=%q O=%q, want CN=alice O=%q", subj.CommonName, subj.Organization, broker.ViewerGroup)
	}
	if ttl := time.Until(pair.Leaf.NotAfter); ttl > 49*time.Hour || ttl < 47*time.Hour {
		t.Errorf("validity left: got %s, want about 48h", ttl)
	}
	caPEM, _ := os.ReadFile(filepath.Join(dir, broker.CredentialsCAFile))
	if string(caPEM) != string(ca.CACertPEM()) {
		t.Error("ca.crt: got something else than the cluster CA")
	}
	err = broker.CreateViewerCredentials(ca, "alice", dir, 0)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second write into %s: got %v, want an 'already exists' error", dir, err)
	}
}

func TestCreateCredentialsRefusesBadNames(t *testing.T) {
	ca := newTestCA(t)
	for _, name := range []string{"", "Alice", "system:viewer", "admin", "a.b", "-a", "a_b", strings.Repeat("a", 64)} {
		err := broker.CreateViewerCredentials(ca, name, filepath.Join(t.TempDir(), "x"), 0)
		if err == nil || !strings.Contains(err.Error(), "viewer name") {
			t.Errorf("viewer %q: got %v, want an error about the viewer name", name, err)
		}
	}
	for _, name := range []string{"bramble-server", "bramble:server:", "bramble:server:A", "alice"} {
		err := broker.CreateServerCredentials(ca, name, filepath.Join(t.TempDir(), "x"), 0)
		if err == nil || !strings.Contains(err.Error(), "server name") {
			t.Errorf("server %q: got %v, want an error about the server name", name, err)
		}
	}
	if err := broker.CreateViewerCredentials(ca, "bob", filepath.Join(t.TempDir(), "x"), -time.Second); err == nil {
		t.Error("negative ttl: got no error")
	}
}

func TestCreateServerCredentials(t *testing.T) {
	ca := newTestCA(t)
	for name, want := range map[string]string{"": broker.DefaultServerName, "bramble:server:srv-2": "bramble:server:srv-2"} {
		dir := filepath.Join(t.TempDir(), "srv")
		if err := broker.CreateServerCredentials(ca, name, dir, 0); err != nil {
			t.Fatalf("CreateServerCredentials(%q): %v", name, err)
		}
		pair, err := tls.LoadX509KeyPair(filepath.Join(dir, broker.CredentialsCertFile), filepath.Join(dir, broker.CredentialsKeyFile))
		if err != nil {
			t.Fatal(err)
		}
		if s := pair.Leaf.Subject; s.CommonName != want || !slices.Equal(s.Organization, []string{broker.ServerGroup}) {
			t.Errorf("name %q: got CN=%q O=%q, want CN=%q O=%q", name, s.CommonName, s.Organization, want, broker.ServerGroup)
		}
	}
}
