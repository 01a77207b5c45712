package encryption

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/bramble-edge/bramble/server/auth"
)

// PathPrefix is where the server answers `bramble secrets-encrypt`:
// GET .../status, POST .../enable|disable|rotate-keys|reencrypt. Callers
// need the non-resource verb (get or post) on the path, as cluster-admin
// has.
const PathPrefix = "/bramble/v1/secrets-encrypt/"

// Result is the answer to a change: what the reencrypt did, then the status.
type Result struct {
	Reencrypted Reencrypted `json:"reencrypted"`
	Status      Status      `json:"status"`
}

// Handler serves PathPrefix for admin, authenticating and authorizing
// every request.
func Handler(admin *Admin, authn auth.Authenticator, authz auth.Authorizer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := strings.TrimPrefix(r.URL.Path, PathPrefix)
		verb, code := opVerb(op, r.Method)
		if code != 0 {
			http.Error(w, "unknown operation "+r.Method+" "+r.URL.Path, code)
			return
		}
		user, err := authn.Authenticate(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if err := authz.Authorize(r.Context(), user, auth.Attributes{Verb: verb, NonResourcePath: r.URL.Path}); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		out, err := run(r.Context(), admin, op, r.URL.Query().Get("prune") == "true")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
}

// opVerb checks op and method and names the authorization verb; code is
// non-zero for requests that name no operation.
func opVerb(op, method string) (verb string, code int) {
	switch op {
	case "status":
		if method == http.MethodGet {
			return "get", 0
		}
	case "enable", "disable", "rotate-keys", "reencrypt":
		if method == http.MethodPost {
			return "post", 0
		}
	default:
		return "", http.StatusNotFound
	}
	return "", http.StatusMethodNotAllowed
}

// run carries out op and reports the status after it.
func run(ctx context.Context, admin *Admin, op string, prune bool) (any, error) {
	var res Result
	var err error
	switch op {
	case "status":
		return admin.Status(ctx)
	case "enable":
		res.Reencrypted, err = admin.Enable(ctx)
	case "disable":
		res.Reencrypted, err = admin.Disable(ctx)
	case "rotate-keys":
		res.Reencrypted, err = admin.RotateKeys(ctx, prune)
	case "reencrypt":
		res.Reencrypted, err = admin.Reencrypt(ctx)
	}
	if err == nil {
		res.Status, err = admin.Status(ctx)
	}
	return res, err
}

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
