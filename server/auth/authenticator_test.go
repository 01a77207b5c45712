package auth_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/pki"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// callVersion sends GET /version with the given TLS client settings and
// Authorization header and returns the status code and the body (the
// Status message for errors).
func callVersion(t testing.TB, url string, cfg *tls.Config, authorization string) (int, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, url+"/version", nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET /version: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var st metav1.Status
	if resp.StatusCode != http.StatusOK && json.Unmarshal(body, &st) == nil {
		return resp.StatusCode, st.Message
	}
	return resp.StatusCode, string(body)
}

// clientCert issues a client certificate under p and returns a TLS client
// configuration presenting it.
func clientCert(t testing.TB, p *pki.PKI, cn string, groups ...string) *tls.Config {
	t.Helper()
	certPEM, keyPEM, err := p.NewClientCert(cn, groups, 0)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{RootCAs: p.CAPool(), Certificates: []tls.Certificate{pair}}
}

func TestAuthenticateOverTLS(t *testing.T) {
	c := newTestCluster(t)
	admin, err := auth.NewUserClientFromFile(c.adminPath)
	if err != nil {
		t.Fatal(err)
	}
	aliceToken, err := admin.CreateUser(context.Background(), "alice", auth.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	id, secret, _ := strings.Cut(aliceToken, ".")
	wrongSecret := id + "." + strings.Repeat("0", len(secret))
	plain := &tls.Config{RootCAs: c.pki.CAPool()}
	p := c.pki

	tests := []struct {
		name     string
		cfg      *tls.Config
		header   string
		wantCode int
		want     string
	}{
		{"admin cert", clientCert(t, p, "admin", "system:masters"), "", 200, "admin admin "},
		{"masters group", clientCert(t, p, "ops", "system:masters"), "", 200, "ops admin "},
		{"node cert", clientCert(t, p, "system:node:pi-1", "system:nodes"), "", 200, "system:node:pi-1 node pi-1"},
		{"node cert without group", clientCert(t, p, "system:node:pi-1"), "", 401, `node certificates need organization "system:nodes"`},
		{"node cert bad name", clientCert(t, p, "system:node:Pi_1", "system:nodes"), "", 401, "node name"},
		{"viewer cert", clientCert(t, p, "carol", "bramble:viewers"), "", 200, "carol viewer "},
		{"cert without role", clientCert(t, p, "mallory"), "", 401, "carries no bramble role"},
		{"cert with other groups: authenticated, left to RBAC", clientCert(t, p, "dev1", "devs", "ops"), "", 403, `User "dev1" cannot get path`},
		{"cert wins over bad token", clientCert(t, p, "admin", "system:masters"), "Bearer nonsense", 200, "admin admin "},
		{"nothing", plain, "", 401, "no client certificate or bearer token"},
		{"user token", plain, "Bearer " + aliceToken, 200, "alice viewer "},
		{"lowercase scheme", plain, "bearer " + aliceToken, 200, "alice viewer "},
		{"wrong secret", plain, "Bearer " + wrongSecret, 401, "invalid bearer token"},
		{"unknown id", plain, "Bearer zzzzzz." + secret, 401, "invalid bearer token"},
		{"malformed token", plain, "Bearer K10abc::x.y", 401, "invalid bearer token"},
		{"empty bearer", plain, "Bearer", 401, "invalid bearer token"},
		{"basic auth", plain, "Basic YWxpY2U6cHc=", 401, "unsupported Authorization scheme"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := callVersion(t, c.srv.URL, tc.cfg, tc.header)
			if code != tc.wantCode || !strings.Contains(body, tc.want) {
				t.Fatalf("got %d %q, want %d containing %q", code, body, tc.wantCode, tc.want)
			}
		})
	}
}

// A server whose TLS layer only requests certificates leaves verification
// to the Authenticator, which must check the chain against the CA itself.
func TestAuthenticateVerifiesRequestedCerts(t *testing.T) {
	p, err := pki.Load(t.TempDir(), pki.Config{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.Load(t.TempDir(), pki.Config{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	authn := auth.NewAuthenticator(p.CAPool(), nil)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, err := authn.Authenticate(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		io.WriteString(w, user.Name+" "+user.Role)
	}))
	srv.TLS = p.ServingTLSConfig()
	srv.TLS.ClientAuth = tls.RequestClientCert
	srv.StartTLS()
	t.Cleanup(srv.Close)

	own := clientCert(t, p, "admin", "system:masters")
	if code, body := callVersion(t, srv.URL, own, ""); code != 200 || body != "admin admin" {
		t.Errorf("own CA: got %d %q, want 200 \"admin admin\"", code, body)
	}
	foreign := clientCert(t, other, "admin", "system:masters")
	foreign.RootCAs = p.CAPool()
	code, body := callVersion(t, srv.URL, foreign, "")
	if code != 401 || !strings.Contains(body, "unknown authority") {
		t.Errorf("foreign CA: got %d %q, want 401 naming an unknown authority", code, body)
	}
	if code, body := callVersion(t, srv.URL, &tls.Config{RootCAs: p.CAPool()}, "Bearer abcdef."+strings.Repeat("a", 32)); code != 401 {
		t.Errorf("token without a TokenLookup: got %d %q, want 401", code, body)
	}
}
