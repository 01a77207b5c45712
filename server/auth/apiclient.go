package auth

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// APIClient sends JSON requests to the API server with the credentials of a
// kubeconfig (client certificate or bearer token). The CLI's admin helpers
// (UserClient here, the join token client in server/join) are built on it.
type APIClient struct {
	server string // https://host:port, no trailing slash
	caPEM  []byte
	token  string
	http   *http.Client
}

// NewAPIClient builds a client from the current context of kc, which must
// embed the CA (certificate-authority-data) and either a client certificate
// and key or a token.
func NewAPIClient(kc *Kubeconfig) (*APIClient, error) {
	cluster, user, err := kc.Current()
	if err != nil {
		return nil, err
	}
	c := &APIClient{server: strings.TrimRight(cluster.Cluster.Server, "/"),
		caPEM: cluster.Cluster.CertificateAuthorityData, token: user.User.Token}
	if u, err := url.Parse(c.server); err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("kubeconfig: cluster %q server %q: want an https:// URL", cluster.Name, c.server)
	}
	tlsCfg, err := clientTLS(cluster, user)
	if err != nil {
		return nil, err
	}
	c.http = &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}}
	return c, nil
}

func clientTLS(cluster *NamedCluster, user *NamedUser) (*tls.Config, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cluster.Cluster.CertificateAuthorityData) {
		return nil, fmt.Errorf("kubeconfig: cluster %q: certificate-authority-data holds no PEM certificate", cluster.Name)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	u := user.User
	switch {
	case len(u.ClientCertificateData) > 0 || len(u.ClientKeyData) > 0:
		pair, err := tls.X509KeyPair(u.ClientCertificateData, u.ClientKeyData)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig: user %q: client-certificate-data/client-key-data: %w", user.Name, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case u.Token == "":
		return nil, fmt.Errorf("kubeconfig: user %q has neither a client certificate nor a token", user.Name)
	}
	return cfg, nil
}

// ServerURL is the API server's URL from the kubeconfig.
func (c *APIClient) ServerURL() string { return c.server }

// CAPEM is the cluster CA from the kubeconfig.
func (c *APIClient) CAPEM() []byte { return c.caPEM }

// Do sends one request to path (which may carry a query) with body as JSON
// (nil: none) and decodes a 2xx JSON answer into out (nil: discarded). A
// non-2xx answer becomes an error carrying the Status message; test it with
// IsStatus.
func (c *APIClient) Do(ctx context.Context, method, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.server+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return statusError(resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

// apiError is a non-2xx answer, with the message of its Status body.
type apiError struct {
	code int
	msg  string
}

func (e *apiError) Error() string { return fmt.Sprintf("server answered %d: %s", e.code, e.msg) }

func statusError(code int, body []byte) error {
	var st metav1.Status
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &st) == nil && st.Message != "" {
		msg = st.Message
	}
	return &apiError{code: code, msg: msg}
}

// IsStatus reports whether err is an API server answer with HTTP status
// code (from APIClient.Do).
func IsStatus(err error, code int) bool {
	var e *apiError
	return errors.As(err, &e) && e.code == code
}
