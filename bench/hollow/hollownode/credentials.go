package hollownode

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/join"
)

// credentials returns the node's saved credentials when they still work
// for this server, and joins (saving the result) otherwise.
func (f *Fleet) credentials(ctx context.Context, name string) (*join.Credentials, error) {
	dir := filepath.Join(f.cfg.StateDir, name)
	if c, err := join.LoadCredentials(dir); err == nil && f.reusable(ctx, c) {
		return c, nil
	}
	password, err := join.LoadOrCreateNodePassword(dir)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	c, err := join.Join(ctx, join.JoinConfig{ServerURL: f.cfg.Server, Token: f.cfg.Token, NodeName: name, NodePassword: password})
	if err != nil {
		return nil, fmt.Errorf("join %s: %w", name, err)
	}
	if err := c.Save(dir); err != nil {
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	return c, nil
}

// reusable reports whether saved credentials belong to this server (same
// URL, the CA the token names) and the API still accepts the certificate
// (a deleted Node's certificate is revoked). When the server cannot be
// reached the credentials are kept: the client retries.
func (f *Fleet) reusable(ctx context.Context, c *join.Credentials) bool {
	if strings.TrimSuffix(c.ServerURL, "/") != strings.TrimSuffix(f.cfg.Server, "/") {
		return false
	}
	block, _ := pem.Decode(c.CACertPEM)
	if block == nil || join.CAHash(block.Bytes) != f.token.CAHash {
		return false
	}
	tlsCfg, err := c.TLSConfig()
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		strings.TrimSuffix(c.ServerURL, "/")+"/api/v1/nodes/"+c.NodeName, nil)
	if err != nil {
		return false
	}
	tr := &http.Transport{TLSClientConfig: tlsCfg}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return true
	}
	resp.Body.Close()
	return resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden
}
