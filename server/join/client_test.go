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

// The CLI's client goes through the real API; what it writes, the join
// endpoint reads straight from the datastore, and the other way round.
func TestTokenClientThroughTheAPI(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	tc, err := join.NewTokenClientFromFile(c.kubecfg)
	if err != nil {
		t.Fatal(err)
	}
	def, err := join.EnsureDefaultToken(ctx, c.tokens, c.pki, c.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	full, err := tc.CreateToken(ctx, 24*time.Hour, "rack 2")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := nodejoin.ParseToken(full)
	if err != nil || tok.CAHash != c.pki.CAHash() {
		t.Fatalf("created token %q: %v; want one naming the CA %s", full, err, c.pki.CAHash())
	}
	list, err := tc.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defTok, _ := nodejoin.ParseToken(def)
	byID := map[string]join.TokenInfo{}
	for _, ti := range list {
		byID[ti.ID] = ti
	}
	got, ok := byID[tok.ID]
	if _, okDef := byID[defTok.ID]; len(list) != 2 || !ok || !okDef {
		t.Fatalf("list: got %+v, want the default token and %s", list, tok.ID)
	}
	if got.Description != "rack 2" || got.Expires.Before(before.Add(24*time.Hour-time.Second)) ||
		got.Expires.After(time.Now().Add(24*time.Hour)) || got.Created.IsZero() {
		t.Errorf("listed token: got %+v, want description \"rack 2\", expiry in 24h, a creation time", got)
	}
	mustJoin(t, c, full, "pi-1")

	if err := tc.DeleteToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := joinNode(t, c, full, "pi-2"); !errors.Is(err, nodejoin.ErrTokenNotFound) {
		t.Errorf("join with a deleted token: got %v, want ErrTokenNotFound", err)
	}
	err = tc.DeleteToken(ctx, tok.ID)
	if !errors.Is(err, nodejoin.ErrTokenNotFound) || !strings.Contains(err.Error(), "not found: deleted or never created") {
		t.Errorf("delete twice: got %v, want ErrTokenNotFound", err)
	}
	if err := tc.DeleteToken(ctx, "BAD"); err == nil || !strings.Contains(err.Error(), `token id "BAD"`) {
		t.Errorf("delete a malformed id: got %v, want an error naming it", err)
	}
}

func TestTokenClientRefusesBadInput(t *testing.T) {
	c := newCluster(t)
	tc, err := join.NewTokenClientFromFile(c.kubecfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := tc.CreateToken(ctx, -time.Hour, ""); err == nil || !strings.Contains(err.Error(), "must not be negative") {
		t.Errorf("negative ttl: got %v, want a refusal", err)
	}
	if _, err := tc.CreateToken(ctx, 0, strings.Repeat("x", 300)); err == nil || !strings.Contains(err.Error(), "at most 256") {
		t.Errorf("long description: got %v, want a refusal", err)
	}
	if _, err := tc.CreateToken(ctx, 0, "line\nbreak"); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("control character: got %v, want a refusal", err)
	}
}
