package join

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/auth"
)

// DefaultTokenFile is where, under the data directory, the server keeps
// its default join token (mode 0600).
const DefaultTokenFile = "server/token"

// defaultTokenDescription marks the token EnsureDefaultToken makes.
const defaultTokenDescription = "default join token (server/token)"

// CAHasher gives the hash of the cluster CA; *pki.PKI is one.
type CAHasher interface {
	CAHash() string
}

// EnsureDefaultToken makes sure <dataDir>/server/token holds a working,
// never-expiring join token for the current CA, and returns it:
//
//   - no file: a new token is stored and written there;
//   - a file whose token is stored and names the current CA: kept as is,
//     so the token stays the same across restarts;
//   - a file whose token was deleted (bramble token delete, or a datastore
//     restored from elsewhere) or names another CA: a new token replaces it,
//     with a log line saying why (the old one is not brought back).
//
// A file that does not parse is an error: the server will not overwrite
// what it cannot read. Call it after the API has created kube-system.
func EnsureDefaultToken(ctx context.Context, tokens *TokenStore, ca CAHasher, dataDir string) (string, error) {
	path := filepath.Join(dataDir, filepath.FromSlash(DefaultTokenFile))
	reason, err := defaultTokenProblem(ctx, tokens, ca, path)
	if err != nil {
		return "", err
	}
	if reason == "" {
		data, _ := os.ReadFile(path)
		return strings.TrimSpace(string(data)), nil
	}
	tok, err := tokens.Create(ctx, ca.CAHash(), 0, defaultTokenDescription)
	if err != nil {
		return "", fmt.Errorf("default join token: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("default join token: %w", err)
	}
	if err := auth.WriteFileAtomic(path, []byte(tok.String()+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write default join token %s: %w", path, err)
	}
	if err := auth.SyncDir(filepath.Dir(path)); err != nil {
		return "", err
	}
	tokens.log.Info("wrote default join token", "path", path, "id", tok.ID, "reason", reason)
	return tok.String(), nil
}

// defaultTokenProblem says why the token file must be (re)written, or ""
// when it is good.
func defaultTokenProblem(ctx context.Context, tokens *TokenStore, ca CAHasher, path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "first start", nil
	}
	if err != nil {
		return "", fmt.Errorf("read default join token: %w", err)
	}
	tok, err := nodejoin.ParseToken(string(data))
	if err != nil {
		return "", fmt.Errorf("default join token %s: %w (remove the file to make a new token)", path, err)
	}
	if tok.CAHash != ca.CAHash() {
		return "the token names another CA", nil
	}
	err = tokens.Verify(ctx, tok.ID, tok.Secret)
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, nodejoin.ErrTokenNotFound):
		return "the token was deleted", nil
	case errors.Is(err, nodejoin.ErrTokenExpired), errors.Is(err, nodejoin.ErrTokenSecret):
		return "the stored token no longer matches the file", nil
	}
	return "", fmt.Errorf("check default join token: %w", err)
}
