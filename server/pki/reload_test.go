package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func serial(t testing.TB, dir, name string) string {
	t.Helper()
	return readCert(t, filepath.Join(dir, name+".crt")).SerialNumber.String()
}

func TestRestartReusesEverything(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	first := mustLoad(t, dir, testConfig(now, "a.example.com"))
	servingBefore, adminBefore := serial(t, dir, "serving"), serial(t, dir, "client-admin")

	second := mustLoad(t, dir, testConfig(now.Add(time.Hour), "a.example.com"))
	if got, want := second.CAHash(), first.CAHash(); got != want {
		t.Errorf("CA hash after restart: got %s, want %s", got, want)
	}
	if got := serial(t, dir, "serving"); got != servingBefore {
		t.Errorf("serving serial after restart: got %s, want %s (unchanged)", got, servingBefore)
	}
	if got := serial(t, dir, "client-admin"); got != adminBefore {
		t.Errorf("admin serial after restart: got %s, want %s (unchanged)", got, adminBefore)
	}
}

func TestSANChangeReissuesServingOnly(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	first := mustLoad(t, dir, testConfig(now))
	servingBefore, adminBefore := serial(t, dir, "serving"), serial(t, dir, "client-admin")

	second := mustLoad(t, dir, testConfig(now, "new.example.com"))
	if got := serial(t, dir, "serving"); got == servingBefore {
		t.Errorf("serving serial after SAN change: got %s, want a new certificate", got)
	}
	if got := serial(t, dir, "client-admin"); got != adminBefore {
		t.Errorf("admin serial after SAN change: got %s, want %s (unchanged)", got, adminBefore)
	}
	if second.CAHash() != first.CAHash() {
		t.Error("CA changed after SAN change, want it kept")
	}
	if err := second.ServingCertificate().VerifyHostname("new.example.com"); err != nil {
		t.Errorf("new SAN: %v", err)
	}
}

func TestRenewalWithin90DaysOfExpiry(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	mustLoad(t, dir, testConfig(now))
	servingBefore, adminBefore := serial(t, dir, "serving"), serial(t, dir, "client-admin")

	mustLoad(t, dir, testConfig(now.Add(200*24*time.Hour)))
	if got := serial(t, dir, "serving"); got != servingBefore {
		t.Errorf("serving serial at 200 days: got %s, want %s (165 days left)", got, servingBefore)
	}
	mustLoad(t, dir, testConfig(now.Add(300*24*time.Hour)))
	if got := serial(t, dir, "serving"); got == servingBefore {
		t.Error("serving certificate at 300 days: kept, want renewed (65 days left)")
	}
	if got := serial(t, dir, "client-admin"); got == adminBefore {
		t.Error("admin certificate at 300 days: kept, want renewed")
	}
}

func TestMismatchedKeyIsReplaced(t *testing.T) {
	dir := t.TempDir()
	mustLoad(t, dir, testConfig(time.Now()))
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "serving.key"), keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	before := serial(t, dir, "serving")
	p := mustLoad(t, dir, testConfig(time.Now()))
	if got := serial(t, dir, "serving"); got == before {
		t.Errorf("serving serial with a foreign key: got %s unchanged, want a new pair", got)
	}
	if p.ServingTLSConfig().Certificates[0].Leaf == nil {
		t.Error("serving certificate not loaded")
	}
}

func TestCACertWithoutKeyIsAnError(t *testing.T) {
	dir := t.TempDir()
	mustLoad(t, dir, testConfig(time.Now()))
	if err := os.Remove(filepath.Join(dir, "ca.key")); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir, testConfig(time.Now()))
	if err == nil || !strings.Contains(err.Error(), "ca.key is missing") {
		t.Fatalf("Load without ca.key: got %v, want an error saying ca.key is missing", err)
	}
}

func TestCAKeyWithoutCertStartsOver(t *testing.T) {
	dir := t.TempDir()
	first := mustLoad(t, dir, testConfig(time.Now()))
	if err := os.Remove(filepath.Join(dir, "ca.crt")); err != nil {
		t.Fatal(err)
	}
	second := mustLoad(t, dir, testConfig(time.Now()))
	if second.CAHash() == first.CAHash() {
		t.Error("CA hash unchanged after ca.crt was lost, want a new CA")
	}
	// Certificates of the old CA must have been replaced.
	leaf := readCert(t, filepath.Join(dir, "client-admin.crt"))
	if err := leaf.CheckSignatureFrom(second.caCert); err != nil {
		t.Errorf("admin certificate after new CA: %v", err)
	}
}

func TestForeignCAKeyIsAnError(t *testing.T) {
	dir := t.TempDir()
	mustLoad(t, dir, testConfig(time.Now()))
	other := t.TempDir()
	mustLoad(t, other, testConfig(time.Now()))
	data, err := os.ReadFile(filepath.Join(other, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.key"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(dir, testConfig(time.Now()))
	if err == nil || !strings.Contains(err.Error(), "does not hold the key") {
		t.Fatalf("Load with a foreign ca.key: got %v, want a key mismatch error", err)
	}
}
