package join_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
	"github.com/bramble-edge/bramble/server/pki"
)

func TestDefaultTokenIsStableAcrossRestarts(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	path := filepath.Join(c.dataDir, "server", "token")
	first, err := join.EnsureDefaultToken(ctx, c.tokens, c.pki, c.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(data)) != first {
		t.Fatalf("file holds %q, want the returned token", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: got %o, want 600", fi.Mode().Perm())
	}
	tok, err := nodejoin.ParseToken(first)
	if err != nil || tok.CAHash != c.pki.CAHash() {
		t.Fatalf("default token %q: %v; want one naming the CA %s", tok.Redacted(), err, c.pki.CAHash())
	}
	info, err := c.tokens.Get(ctx, tok.ID)
	if err != nil || !info.Expires.IsZero() {
		t.Fatalf("stored default token: got %+v, %v; want one that never expires", info, err)
	}

	// A restart: the PKI loaded again from its directory, the same store.
	p2, err := pki.Load(filepath.Join(c.dataDir, "server", "tls"), pki.Config{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	second, err := join.EnsureDefaultToken(ctx, c.tokens, p2, c.dataDir)
	if err != nil || second != first {
		t.Fatalf("after restart: got %v, %v; want the same token", second != first, err)
	}
	list, _ := c.tokens.List(ctx)
	if len(list) != 1 {
		t.Errorf("tokens stored: got %d, want 1", len(list))
	}
	mustJoin(t, c, second, "pi-1")
}

func TestDefaultTokenReplacedWhenDeleted(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	first, err := join.EnsureDefaultToken(ctx, c.tokens, c.pki, c.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := nodejoin.ParseToken(first)
	if err := c.tokens.Delete(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	second, err := join.EnsureDefaultToken(ctx, c.tokens, c.pki, c.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Fatalf("after deleting the default token: got it back, want a new token")
	}
	if _, err := joinNode(t, c, first, "pi-1"); !errors.Is(err, nodejoin.ErrTokenNotFound) {
		t.Errorf("deleted default token: got %v, want ErrTokenNotFound", err)
	}
	mustJoin(t, c, second, "pi-1")
}

func TestDefaultTokenFileProblems(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	path := filepath.Join(c.dataDir, "server", "token")
	if err := os.WriteFile(path, []byte("not a token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := join.EnsureDefaultToken(ctx, c.tokens, c.pki, c.dataDir); err == nil ||
		!strings.Contains(err.Error(), "remove the file to make a new token") {
		t.Fatalf("garbage in the token file: got %v, want an error saying to remove it", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "not a token\n" {
		t.Fatalf("the unreadable file was overwritten with %q", data)
	}

	// A token for another CA (the CA was made anew) is replaced.
	other, _ := pki.Load(t.TempDir(), pki.Config{Logger: quiet()})
	stale, err := c.tokens.Create(ctx, other.CAHash(), 0, "old CA")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(stale.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh, err := join.EnsureDefaultToken(ctx, c.tokens, c.pki, c.dataDir)
	if err != nil || !strings.HasPrefix(fresh, "K10"+c.pki.CAHash()+"::") {
		t.Fatalf("token for another CA: got %q, %v; want a new token for this CA", fresh, err)
	}
}
