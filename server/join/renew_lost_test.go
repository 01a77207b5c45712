package join_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
)

// A renewal whose answer never arrived: the server issued and recorded a
// new certificate, the node still holds only its old one. Retrying with
// the old one must give a fresh certificate, not a lockout; the old one
// stays good for nothing else, and once the node used its new certificate
// the old one cannot renew any more, here or on another server.
func TestRenewAfterTheAnswerWasLost(t *testing.T) {
	e := newRenewEnv(t, "pi-lost")
	ctx := context.Background()
	old, _ := e.creds.Certificate()
	lost, err := nodejoin.Renew(ctx, e.creds, nil)
	if err != nil {
		t.Fatalf("first Renew: %v", err)
	}
	lostCert, _ := lost.Certificate()
	if err := e.registry.Check("pi-lost", old); !errors.Is(err, join.ErrCertRevoked) {
		t.Errorf("old certificate outside renewal: %v, want revoked", err)
	}
	retry, err := nodejoin.Renew(ctx, e.creds, nil)
	if err != nil {
		t.Fatalf("renew again with the old certificate after a lost answer: got %v, want a fresh certificate", err)
	}
	cert, _ := retry.Certificate()
	if cert.SerialNumber.Cmp(old.SerialNumber) == 0 || cert.SerialNumber.Cmp(lostCert.SerialNumber) == 0 {
		t.Errorf("retried renewal serial %x: want one neither the old nor the lost certificate has", cert.SerialNumber)
	}
	if err := e.registry.Check("pi-lost", lostCert); !errors.Is(err, join.ErrCertRevoked) {
		t.Errorf("certificate of the lost answer: %v, want revoked", err)
	}
	if err := e.registry.Check("pi-lost", cert); err != nil {
		t.Fatalf("retried renewal's certificate: %v, want current", err)
	}
	if _, err := nodejoin.Renew(ctx, e.creds, nil); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("renew with the old certificate after the new one was used: %v, want a refusal saying it was replaced", err)
	}
	// The stored record forgets the old serial too: a server that loads
	// the records now refuses it.
	other := join.NewNodeCertRegistry(e.store, join.NodeCertRegistryConfig{Logger: quiet()})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := other.Start(ctx); err != nil {
			t.Fatal(err)
		}
		err := other.CheckRenewal("pi-lost", old)
		other.Stop()
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("another server still lets the old certificate renew 10s after the new one was used")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Until the new certificate is used, the stored record lets the old one
// renew on any server: the answer may be lost on the way from another.
func TestRenewAfterALostAnswerOnAnotherServer(t *testing.T) {
	e := newRenewEnv(t, "pi-lost-2")
	ctx := context.Background()
	old, _ := e.creds.Certificate()
	if _, err := nodejoin.Renew(ctx, e.creds, nil); err != nil {
		t.Fatalf("first Renew: %v", err)
	}
	other := join.NewNodeCertRegistry(e.store, join.NodeCertRegistryConfig{Logger: quiet()})
	if err := other.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer other.Stop()
	if err := other.CheckRenewal("pi-lost-2", old); err != nil {
		t.Errorf("another server, old certificate after a lost answer: %v, want allowed to renew", err)
	}
	if err := other.Check("pi-lost-2", old); !errors.Is(err, join.ErrCertRevoked) {
		t.Errorf("another server, old certificate outside renewal: %v, want revoked", err)
	}
}
