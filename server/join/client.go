package join

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/auth"
)

// TokenClient manages join tokens through the API server with an admin
// kubeconfig, as `bramble token create|list|delete` does. Tokens are the
// same Secrets the TokenStore reads.
type TokenClient struct {
	api    *auth.APIClient
	caHash string
}

// NewTokenClient builds a client from kc's current context. The CA hash
// that new tokens carry is taken from the kubeconfig's CA data: the same
// CA a node will check the server against.
func NewTokenClient(kc *auth.Kubeconfig) (*TokenClient, error) {
	c, err := auth.NewAPIClient(kc)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(c.CAPEM())
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("kubeconfig: certificate-authority-data holds no PEM certificate")
	}
	return &TokenClient{api: c, caHash: nodejoin.CAHash(block.Bytes)}, nil
}

// NewTokenClientFromFile reads the kubeconfig at path and builds a client.
func NewTokenClientFromFile(path string) (*TokenClient, error) {
	kc, err := auth.LoadKubeconfig(path)
	if err != nil {
		return nil, err
	}
	return NewTokenClient(kc)
}

const tokenSecretsPath = "/api/v1/namespaces/" + TokenNamespace + "/secrets"

// CreateToken stores a new join token and returns it in full
// (K10<CA hash>::<id>.<secret>); it is not shown again. ttl 0 means it
// never expires; the expiry is counted from this machine's clock. No
// usages means DefaultUsages.
func (c *TokenClient) CreateToken(ctx context.Context, ttl time.Duration, description string, usages ...string) (string, error) {
	for attempt := 1; ; attempt++ {
		secret, tok, err := NewTokenSecret(c.caHash, ttl, description, time.Now(), usages...)
		if err != nil {
			return "", err
		}
		body, err := json.Marshal(secret)
		if err != nil {
			return "", fmt.Errorf("encode join token secret: %w", err)
		}
		err = c.api.Do(ctx, http.MethodPost, tokenSecretsPath, body, nil)
		if auth.IsStatus(err, http.StatusConflict) && attempt < maxIDAttempts {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("create join token: %w", err)
		}
		return tok.String(), nil
	}
}

// ListTokens returns every join token, oldest first, with the nodes whose
// latest join used it. Malformed token Secrets are skipped.
func (c *TokenClient) ListTokens(ctx context.Context) ([]TokenInfo, error) {
	var list corev1.SecretList
	q := url.Values{"labelSelector": {TokenLabel}}
	if err := c.api.Do(ctx, http.MethodGet, tokenSecretsPath+"?"+q.Encode(), nil, &list); err != nil {
		return nil, fmt.Errorf("list join tokens: %w", err)
	}
	joined, err := c.joinedNodes(ctx)
	if err != nil {
		return nil, err
	}
	var out []TokenInfo
	for i := range list.Items {
		if t, err := TokenFromSecret(&list.Items[i]); err == nil {
			t.Nodes = joined[t.ID]
			out = append(out, *t)
		}
	}
	sortTokens(out)
	return out, nil
}

// joinedNodes maps token ids to the nodes whose latest join used them,
// read from the node password Secrets' labels.
func (c *TokenClient) joinedNodes(ctx context.Context) (map[string][]string, error) {
	var list corev1.SecretList
	q := url.Values{"labelSelector": {JoinedWithLabel}}
	if err := c.api.Do(ctx, http.MethodGet, tokenSecretsPath+"?"+q.Encode(), nil, &list); err != nil {
		return nil, fmt.Errorf("list node passwords: %w", err)
	}
	out := map[string][]string{}
	for _, s := range list.Items {
		node, ok := strings.CutSuffix(s.Name, PasswordSecretSuffix)
		if ok && s.Type == PasswordSecretType {
			id := s.Labels[JoinedWithLabel]
			out[id] = append(out[id], node)
		}
	}
	for _, nodes := range out {
		slices.Sort(nodes)
	}
	return out, nil
}

// DeleteToken deletes the token with id: joins with it fail from then on
// (nodes that already joined keep their certificates). An unknown id gives
// an error wrapping nodejoin.ErrTokenNotFound.
func (c *TokenClient) DeleteToken(ctx context.Context, id string) error {
	if err := nodejoin.CheckID(id); err != nil {
		return fmt.Errorf("token id %q: want %d lowercase letters or digits", id, nodejoin.IDLen)
	}
	err := c.api.Do(ctx, http.MethodDelete, tokenSecretsPath+"/"+TokenSecretPrefix+id, nil, nil)
	if auth.IsStatus(err, http.StatusNotFound) {
		return notFound(id)
	}
	if err != nil {
		return fmt.Errorf("delete join token %s: %w", id, err)
	}
	return nil
}
