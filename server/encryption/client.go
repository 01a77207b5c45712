package encryption

import (
	"context"
	"fmt"
	"net/http"

	"github.com/bramble-edge/bramble/server/auth"
)

// Client drives a server's secrets encryption with an admin kubeconfig,
// as `bramble secrets-encrypt` does.
type Client struct {
	api *auth.APIClient
}

// NewClientFromFile reads the kubeconfig at path and builds a client.
func NewClientFromFile(path string) (*Client, error) {
	kc, err := auth.LoadKubeconfig(path)
	if err != nil {
		return nil, err
	}
	c, err := auth.NewAPIClient(kc)
	if err != nil {
		return nil, err
	}
	return &Client{api: c}, nil
}

// Status asks for the keys and the Secrets each holds.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var st Status
	if err := c.api.Do(ctx, http.MethodGet, PathPrefix+"status", nil, &st); err != nil {
		return Status{}, fmt.Errorf("secrets-encrypt status: %w", err)
	}
	return st, nil
}

// Do runs op (enable, disable, rotate-keys, reencrypt) and waits for its
// reencrypt to finish.
func (c *Client) Do(ctx context.Context, op string, prune bool) (Result, error) {
	path := PathPrefix + op
	if prune {
		path += "?prune=true"
	}
	var res Result
	if err := c.api.Do(ctx, http.MethodPost, path, nil, &res); err != nil {
		return Result{}, fmt.Errorf("secrets-encrypt %s: %w", op, err)
	}
	return res, nil
}
