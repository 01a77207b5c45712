package join

import (
	"bytes"
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/durable"
)

func testCreds(t *testing.T, ca *testCA) *Credentials {
	t.Helper()
	key := newKey(t)
	keyPEM, err := encodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return &Credentials{ServerURL: "https://server:6443", NodeName: "pi-1", CACertPEM: []byte(ca.pem()),
		CertPEM: ca.issue(t, "system:node:pi-1", "system:nodes", key.Public()), KeyPEM: keyPEM,
		MQTTAddresses: []string{"mqtts://server:8883"}}
}

// A crash of SaveRenewed after the new key was written but before the new
// certificate left a key that fits no certificate; the next load finishes
// the swap from renewed.pem.
func TestLoadFinishesAnInterruptedRenewal(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	old, next := testCreds(t, ca), testCreds(t, ca)
	if err := old.Save(dir); err != nil {
		t.Fatal(err)
	}
	// The first steps of SaveRenewed, then the crash.
	if err := durable.WriteFile(filepath.Join(dir, RenewedFile), append(append([]byte(nil), next.KeyPEM...), next.CertPEM...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := durable.WriteFile(filepath.Join(dir, KeyFile), next.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCredentials(dir)
	if err != nil {
		t.Fatalf("load after a torn renewal: %v", err)
	}
	if !bytes.Equal(got.CertPEM, next.CertPEM) || !bytes.Equal(got.KeyPEM, next.KeyPEM) {
		t.Error("load after a torn renewal: want the renewed pair")
	}
	if _, err := os.Stat(filepath.Join(dir, RenewedFile)); !os.IsNotExist(err) {
		t.Errorf("%s still there after the swap finished: %v", RenewedFile, err)
	}
}

// A renewed.pem torn itself (the crash came while writing it) is dropped
// and the old pair kept.
func TestLoadDropsATornRenewedFile(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	old, next := testCreds(t, ca), testCreds(t, ca)
	if err := old.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, RenewedFile), next.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCredentials(dir)
	if err != nil || !bytes.Equal(got.CertPEM, old.CertPEM) {
		t.Fatalf("load with a torn renewed.pem: %v, want the old pair", err)
	}
	if err := next.SaveRenewed(dir); err != nil {
		t.Fatal(err)
	}
	if got, err = LoadCredentials(dir); err != nil || !bytes.Equal(got.CertPEM, next.CertPEM) {
		t.Fatalf("load after SaveRenewed: %v, want the renewed pair", err)
	}
}

// Handshakes wait while a renewal is held and then present the new
// certificate; the renewing client's own handshakes do not wait.
func TestCertSourceHold(t *testing.T) {
	ca := newTestCA(t)
	pair := func(c *Credentials) tls.Certificate {
		p, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := pair(testCreds(t, ca)), pair(testCreds(t, ca))
	src := NewCertSource(a)
	waiting, now := src.Use(&tls.Config{}), src.UseCurrent(&tls.Config{})
	release := src.Hold()
	got := make(chan *tls.Certificate, 1)
	go func() {
		c, _ := waiting.GetClientCertificate(nil)
		got <- c
	}()
	if c, _ := now.GetClientCertificate(nil); c.Leaf != a.Leaf {
		t.Error("UseCurrent during a hold: want the current certificate at once")
	}
	select {
	case <-got:
		t.Fatal("Use answered during a hold; want it to wait")
	case <-time.After(100 * time.Millisecond):
	}
	src.Set(b)
	release()
	select {
	case c := <-got:
		if c.Leaf != b.Leaf {
			t.Error("Use after the hold: want the renewed certificate")
		}
	case <-time.After(time.Second):
		t.Fatal("Use still waiting after the hold ended")
	}
}

func TestRenewAt(t *testing.T) {
	nb := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got, want := RenewAt(nb, nb.Add(300*24*time.Hour)), nb.Add(200*24*time.Hour); !got.Equal(want) {
		t.Errorf("RenewAt for 300 days: %s, want %s (a third left)", got, want)
	}
}
