package join_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/join"
)

func TestRevokeRefusesTheCertificateAtOnce(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	c.createNode("pi-1")
	token := c.newToken(0)
	creds := mustJoin(t, c, token, "pi-1")
	cert, _ := creds.Certificate()
	if !c.registry.Valid(ctx, "pi-1", cert.SerialNumber) {
		t.Fatalf("Valid after join: got false, want true")
	}
	if err := c.registry.Revoke(ctx, "pi-1"); err != nil {
		t.Fatal(err)
	}
	if c.registry.Valid(ctx, "pi-1", cert.SerialNumber) {
		t.Fatalf("Valid right after Revoke: got true, want false")
	}
	code, body := c.call(nodeTLS(t, creds), http.MethodGet, "/api/v1/nodes/pi-1", "")
	if code != http.StatusUnauthorized || !strings.Contains(body, "node pi-1 was deleted; join again") {
		t.Fatalf("revoked certificate: got %d %s, want 401 saying the node was deleted", code, body)
	}

	// Joining again gives a working certificate; the revoked one stays dead.
	again := mustJoin(t, c, token, "pi-1")
	if code, body := c.call(nodeTLS(t, again), http.MethodGet, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Fatalf("after joining again: got %d %s, want 200", code, body)
	}
	if code, _ := c.call(nodeTLS(t, creds), http.MethodGet, "/api/v1/nodes/pi-1", ""); code != http.StatusUnauthorized {
		t.Fatalf("the revoked certificate after a new join: got %d, want 401", code)
	}
}

func TestNewJoinReplacesTheOldCertificate(t *testing.T) {
	c := newCluster(t)
	c.createNode("pi-1")
	token := c.newToken(0)
	first := mustJoin(t, c, token, "pi-1")
	second := mustJoin(t, c, token, "pi-1")
	code, body := c.call(nodeTLS(t, first), http.MethodGet, "/api/v1/nodes/pi-1", "")
	if code != http.StatusUnauthorized || !strings.Contains(body, "was replaced by a newer join") {
		t.Fatalf("first certificate: got %d %s, want 401 saying it was replaced", code, body)
	}
	if code, body := c.call(nodeTLS(t, second), http.MethodGet, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Fatalf("second certificate: got %d %s, want 200", code, body)
	}
	// A node certificate the CA signed outside the join is not on record.
	certPEM, _, err := c.pki.NewClientCert("system:node:pi-9", []string{"system:nodes"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := parseCert(certPEM)
	if err := c.registry.Check("pi-9", cert); !errors.Is(err, join.ErrCertRevoked) || !strings.Contains(err.Error(), "no certificate of node pi-9 is on record") {
		t.Fatalf("unrecorded certificate: got %v, want ErrCertRevoked saying none is on record", err)
	}
}

// A second server sharing the datastore sees a revoke through its watch,
// and a registry started later loads what is on record.
func TestRegistriesShareRevocations(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	creds := mustJoin(t, c, c.newToken(0), "pi-1")
	cert, _ := creds.Certificate()
	other := join.NewNodeCertRegistry(c.store, join.NodeCertRegistryConfig{Logger: quiet()})
	if other.Valid(ctx, "pi-1", cert.SerialNumber) {
		t.Fatalf("Valid before Start: got true, want false")
	}
	if err := other.Check("pi-1", cert); err == nil || !strings.Contains(err.Error(), "not loaded yet") {
		t.Fatalf("Check before Start: got %v, want a not-loaded refusal", err)
	}
	if err := other.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer other.Stop()
	if !other.Valid(ctx, "pi-1", cert.SerialNumber) {
		t.Fatalf("Valid after Start: got false, want true")
	}
	if err := c.registry.Revoke(ctx, "pi-1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the other registry to see the revoke", func() bool { return !other.Valid(ctx, "pi-1", cert.SerialNumber) })
	again := mustJoin(t, c, c.newToken(0), "pi-1")
	cert2, _ := again.Certificate()
	waitFor(t, "the other registry to see the new join", func() bool { return other.Valid(ctx, "pi-1", cert2.SerialNumber) })
}

// A revoke that finds nothing to delete must not hide a certificate
// recorded afterwards.
func TestRevokeWithoutRecord(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	if err := c.registry.Revoke(ctx, "ghost"); err != nil {
		t.Fatalf("revoke a node never joined: got %v, want nil", err)
	}
	creds := mustJoin(t, c, c.newToken(0), "ghost")
	cert, _ := creds.Certificate()
	if !c.registry.Valid(ctx, "ghost", cert.SerialNumber) {
		t.Fatalf("Valid after join following an empty revoke: got false, want true")
	}
}

// The registry survives a restart: the records are in the datastore.
func TestRegistryReloadsAfterRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	open := func() (*datastore.SQLite, *join.NodeCertRegistry) {
		store, err := datastore.OpenSQLite(ctx, filepath.Join(dir, "state.db"), datastore.SQLiteConfig{Logger: quiet(), CompactInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		reg := join.NewNodeCertRegistry(store, join.NodeCertRegistryConfig{Logger: quiet()})
		if err := reg.Start(ctx); err != nil {
			t.Fatal(err)
		}
		return store, reg
	}
	c := newCluster(t)
	cert, _ := mustJoin(t, c, c.newToken(0), "pi-1").Certificate()
	store, reg := open()
	if err := reg.Record(ctx, "pi-1", cert); err != nil {
		t.Fatal(err)
	}
	reg.Stop()
	store.Close()
	store, reg = open()
	defer store.Close()
	defer reg.Stop()
	if !reg.Valid(ctx, "pi-1", cert.SerialNumber) {
		t.Fatalf("Valid after restart: got false, want true")
	}
}

// waitFor polls cond until it holds; it fails after 10s (a watch that
// never delivers), which is not a performance assertion.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// OnInvalidate reports each certificate that stops being valid, on the
// server that made the change and on one that only watches.
func TestOnInvalidate(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	seen := make(chan string, 10)
	other := join.NewNodeCertRegistry(c.store, join.NodeCertRegistryConfig{Logger: quiet(),
		OnInvalidate: func(node string) { seen <- node }})
	if err := other.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer other.Stop()
	token := c.newToken(0)
	first, _ := mustJoin(t, c, token, "pi-1").Certificate()
	waitFor(t, "the first join", func() bool { return other.Valid(ctx, "pi-1", first.SerialNumber) })
	mustJoin(t, c, token, "pi-1") // replaces the first certificate
	if got := <-seen; got != "pi-1" {
		t.Fatalf("after a new join: got %q, want pi-1", got)
	}
	if err := c.registry.Revoke(ctx, "pi-1"); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; got != "pi-1" {
		t.Fatalf("after revoke: got %q, want pi-1", got)
	}
	if err := other.Revoke(ctx, "pi-1"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-seen:
		t.Fatalf("revoking an already revoked node reported %q again", n)
	default:
	}
}
