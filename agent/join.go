package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/bramble-edge/bramble/join"
)

// fatalJoin are the join failures retrying cannot fix: the token is wrong,
// gone, out of date or not scoped to this join, or the node name is
// refused. (A name held by another node password is retried: an admin
// may free it.)
var fatalJoin = []error{
	join.ErrCAHashMismatch, join.ErrTokenSecret, join.ErrTokenExpired, join.ErrTokenNotFound,
	join.ErrMalformedToken, join.ErrInvalidNodeName, join.ErrTokenUsage,
}

func isFatalJoin(err error) bool {
	for _, f := range fatalJoin {
		if errors.Is(err, f) {
			return true
		}
	}
	return false
}

// credentials returns the saved credentials, joining first if the node
// never did. A token that is wrong fails at once; a server that cannot be
// reached (or refuses for another reason) is retried with back-off until
// ctx ends.
func credentials(ctx context.Context, cfg *Config) (*join.Credentials, error) {
	creds, err := join.LoadCredentials(cfg.AgentDir())
	if err == nil {
		if cfg.NodeName != "" && cfg.NodeName != creds.NodeName {
			return nil, fmt.Errorf("--node-name: got %q, but this data dir joined as %q (remove %s to join again)",
				cfg.NodeName, creds.NodeName, cfg.AgentDir())
		}
		return creds, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load credentials: %w", err)
	}
	switch {
	case cfg.ServerURL == "":
		return nil, errors.New("not joined yet: --server (BRAMBLE_URL) is required for the first start")
	case cfg.Token == "":
		return nil, errors.New("not joined yet: --token (BRAMBLE_TOKEN) is required for the first start")
	}
	if _, err := join.ParseToken(cfg.Token); err != nil {
		return nil, fmt.Errorf("--token: %w", err)
	}
	return joinWithRetry(ctx, cfg)
}

func joinWithRetry(ctx context.Context, cfg *Config) (*join.Credentials, error) {
	password, err := join.LoadOrCreateNodePassword(cfg.AgentDir())
	if err != nil {
		return nil, err
	}
	delay := time.Second
	for {
		creds, err := join.Join(ctx, join.JoinConfig{ServerURL: cfg.ServerURL, Token: cfg.Token,
			NodeName: cfg.NodeName, NodePassword: password, Timeout: 15 * time.Second})
		if err == nil {
			if err := creds.Save(cfg.AgentDir()); err != nil {
				return nil, fmt.Errorf("save credentials: %w", err)
			}
			cfg.Logger.Info("joined the cluster", "node", creds.NodeName, "server", creds.ServerURL)
			return creds, nil
		}
		if isFatalJoin(err) {
			return nil, err // its message starts with "join:" and names the check
		}
		logJoinFailure(cfg, err, delay)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("join %s: %w (last error: %v)", cfg.ServerURL, ctx.Err(), err)
		case <-time.After(delay):
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// logJoinFailure says why a join is retried. A name held by another
// node password is an error an admin must act on: the log says what
// to do and names this machine's password file; the agent keeps trying,
// so it joins as soon as the Node is deleted.
func logJoinFailure(cfg *Config, err error, delay time.Duration) {
	if errors.Is(err, join.ErrNodePassword) {
		cfg.Logger.Error("this machine cannot join under its name; will retry", "node", cfg.NodeName, "in", delay,
			"err", err, "passwordFile", filepath.Join(cfg.AgentDir(), join.NodePasswordFile))
		return
	}
	cfg.Logger.Warn("join failed, will retry", "server", cfg.ServerURL, "in", delay, "err", err)
}
