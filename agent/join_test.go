package agent

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/join"
)

func TestCredentialsNeedServerAndTokenToJoin(t *testing.T) {
	tok := "K10" + strings.Repeat("a", 64) + "::abcdef." + strings.Repeat("b", 32)
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Token: tok}, "--server"},
		{Config{ServerURL: "https://127.0.0.1:1"}, "--token"},
		{Config{ServerURL: "https://127.0.0.1:1", Token: "K10nonsense"}, "--token"},
	} {
		tc.cfg.DataDir = t.TempDir()
		tc.cfg.NodeName = "pi"
		tc.cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		if _, err := credentials(context.Background(), &tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error naming %s", tc.cfg, err, tc.want)
		}
	}
}

func TestFatalJoinErrors(t *testing.T) {
	for _, err := range []error{join.ErrCAHashMismatch, join.ErrTokenSecret, join.ErrTokenExpired, join.ErrTokenNotFound} {
		if !isFatalJoin(&join.Error{Kind: err, Msg: "join: x"}) {
			t.Errorf("%v: got retried, want fatal", err)
		}
	}
	if isFatalJoin(&join.Error{Kind: join.ErrRejected, Msg: "join: connection refused"}) {
		t.Errorf("an unreachable server: got fatal, want retried")
	}
}

func TestResolveNodeName(t *testing.T) {
	cfg := Config{DataDir: t.TempDir(), NodeName: "Not_A_Name"}
	if err := resolveNodeName(&cfg); err == nil || !strings.Contains(err.Error(), "--node-name") {
		t.Errorf("bad name: got %v, want an error naming --node-name", err)
	}
	cfg = Config{DataDir: filepath.Join(t.TempDir(), "fresh")}
	if err := resolveNodeName(&cfg); err != nil || cfg.NodeName == "" {
		t.Errorf("hostname default: got %q, %v", cfg.NodeName, err)
	}
}

// A token not scoped to the join ends the agent; a name held by another
// machine's node password is retried (an admin may free it).
func TestNodePasswordAndUsageFailures(t *testing.T) {
	if !isFatalJoin(&join.Error{Kind: join.ErrTokenUsage, Msg: "join: x"}) {
		t.Error("ErrTokenUsage: got retried, want fatal")
	}
	if isFatalJoin(&join.Error{Kind: join.ErrNodePassword, Msg: "join: x"}) {
		t.Error("ErrNodePassword: got fatal, want retried")
	}
}
