package viewers

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/server/auth"
)

// Credential is one recorded viewer credential, as `list` shows it.
type Credential struct {
	Name     string
	Serial   string // "" when Revoked
	NotAfter time.Time
	Created  time.Time
	Revoked  bool
}

// Client records, lists and deletes viewer credentials through the API
// (the admin kubeconfig's identity).
type Client struct{ api *auth.APIClient }

// NewClient talks to the API kc names.
func NewClient(kc *auth.Kubeconfig) (*Client, error) {
	c, err := auth.NewAPIClient(kc)
	if err != nil {
		return nil, err
	}
	return &Client{api: c}, nil
}

const recordsPath = "/api/v1/namespaces/" + Namespace + "/configmaps"

// Record makes cert the current credential of viewer name, replacing (and
// so revoking) any earlier one.
func (c *Client) Record(ctx context.Context, name string, cert *x509.Certificate) error {
	return c.put(ctx, name, map[string]string{SerialKey: cert.SerialNumber.Text(16),
		ExpiryKey: cert.NotAfter.UTC().Format(time.RFC3339)})
}

// Delete revokes every credential of viewer name, recorded or not: the
// broker drops its sessions and the API refuses it within seconds. The
// record stays, saying revoked, until credentials are made for the name
// again.
func (c *Client) Delete(ctx context.Context, name string) error {
	return c.put(ctx, name, map[string]string{RevokedKey: "true"})
}

// put creates or replaces viewer name's record with data.
func (c *Client) put(ctx context.Context, name string, data map[string]string) error {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: NamePrefix + name, Namespace: Namespace, Labels: map[string]string{Label: "true"}},
		Data:       data}
	body, err := json.Marshal(cm)
	if err != nil {
		return err
	}
	err = c.api.Do(ctx, http.MethodPost, recordsPath, body, nil)
	if auth.IsStatus(err, http.StatusConflict) {
		err = c.api.Do(ctx, http.MethodPut, recordsPath+"/"+NamePrefix+name, body, nil)
	}
	if err != nil {
		return fmt.Errorf("record viewer credential %s: %w", name, err)
	}
	return nil
}

// List returns the recorded credentials, sorted by name.
func (c *Client) List(ctx context.Context) ([]Credential, error) {
	var list corev1.ConfigMapList
	q := url.Values{"labelSelector": {Label}}
	if err := c.api.Do(ctx, http.MethodGet, recordsPath+"?"+q.Encode(), nil, &list); err != nil {
		return nil, fmt.Errorf("list viewer credentials: %w", err)
	}
	var out []Credential
	for _, cm := range list.Items {
		if !strings.HasPrefix(cm.Name, NamePrefix) {
			continue
		}
		exp, _ := time.Parse(time.RFC3339, cm.Data[ExpiryKey])
		out = append(out, Credential{Name: strings.TrimPrefix(cm.Name, NamePrefix), Serial: cm.Data[SerialKey],
			NotAfter: exp, Created: cm.CreationTimestamp.Time, Revoked: cm.Data[RevokedKey] == "true"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
