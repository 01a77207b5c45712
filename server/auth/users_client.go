package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// UserClient manages user tokens through the API server, as `bramble user`
// does, with the credentials of an admin kubeconfig.
type UserClient struct {
	api *APIClient
}

// UserInfo describes one user token, as ListUsers reports it.
type UserInfo struct {
	Name    string
	Role    string
	ID      string
	Created time.Time
}

// NewUserClient builds a client from the current context of kc, which must
// embed the CA (certificate-authority-data) and either a client certificate
// and key or a token.
func NewUserClient(kc *Kubeconfig) (*UserClient, error) {
	c, err := NewAPIClient(kc)
	if err != nil {
		return nil, err
	}
	return &UserClient{api: c}, nil
}

// NewUserClientFromFile reads the kubeconfig at path (an admin kubeconfig
// such as /etc/bramble/bramble.yaml) and builds a client from it.
func NewUserClientFromFile(path string) (*UserClient, error) {
	kc, err := LoadKubeconfig(path)
	if err != nil {
		return nil, err
	}
	return NewUserClient(kc)
}

// ServerURL is the API server's URL from the kubeconfig.
func (c *UserClient) ServerURL() string { return c.api.ServerURL() }

// CAPEM is the cluster CA from the kubeconfig, for WriteUserKubeconfig.
func (c *UserClient) CAPEM() []byte { return c.api.CAPEM() }

const userSecretsPath = "/api/v1/namespaces/" + UserNamespace + "/secrets"

// CreateUser stores a new token for user name with role and returns the
// token (<id>.<secret>). It fails if the user already exists.
func (c *UserClient) CreateUser(ctx context.Context, name, role string) (string, error) {
	secret, token, err := NewUserToken(name, role)
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(secret)
	if err != nil {
		return "", fmt.Errorf("encode user secret: %w", err)
	}
	err = c.api.Do(ctx, http.MethodPost, userSecretsPath, body, nil)
	if IsStatus(err, http.StatusConflict) {
		return "", fmt.Errorf("create user %s: %w", name, ErrUserExists)
	}
	if err != nil {
		return "", fmt.Errorf("create user %s: %w", name, err)
	}
	return token, nil
}

// ListUsers returns the users, sorted by name. Malformed user Secrets are
// skipped.
func (c *UserClient) ListUsers(ctx context.Context) ([]UserInfo, error) {
	var list corev1.SecretList
	q := url.Values{"labelSelector": {UserLabel}}
	if err := c.api.Do(ctx, http.MethodGet, userSecretsPath+"?"+q.Encode(), nil, &list); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	var out []UserInfo
	for i := range list.Items {
		t, err := StoredTokenFromSecret(&list.Items[i])
		if err != nil {
			continue
		}
		out = append(out, UserInfo{Name: t.Name, Role: t.Role, ID: t.ID,
			Created: list.Items[i].CreationTimestamp.Time})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// DeleteUser deletes user name; its token stops working within the
// server's token cache TTL.
func (c *UserClient) DeleteUser(ctx context.Context, name string) error {
	if err := ValidateUserName(name); err != nil {
		return err
	}
	err := c.api.Do(ctx, http.MethodDelete, userSecretsPath+"/"+UserSecretPrefix+name, nil, nil)
	if IsStatus(err, http.StatusNotFound) {
		return fmt.Errorf("delete user %s: %w", name, ErrUserNotFound)
	}
	if err != nil {
		return fmt.Errorf("delete user %s: %w", name, err)
	}
	return nil
}

// ErrUserExists and ErrUserNotFound let the CLI word the common failures.
var (
	ErrUserExists   = errors.New("user already exists")
	ErrUserNotFound = errors.New("user not found")
)

// UserBindingPrefix starts the name of the ClusterRoleBinding the server
// makes for each user (bramble-user:<name>, see server/rbac).
const UserBindingPrefix = "bramble-user:"

// WaitForBinding waits until the server has made user name's
// ClusterRoleBinding, so that the new token is usable at once; it gives up
// with an error when ctx ends first.
func (c *UserClient) WaitForBinding(ctx context.Context, name string) error {
	path := "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/" + url.PathEscape(UserBindingPrefix+name)
	for {
		err := c.api.Do(ctx, http.MethodGet, path, nil, nil)
		if err == nil {
			return nil
		}
		if !IsStatus(err, http.StatusNotFound) {
			return fmt.Errorf("wait for the ClusterRoleBinding of user %s: %w", name, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the ClusterRoleBinding of user %s: %w", name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
