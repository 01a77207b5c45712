package auth_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/pki"
)

// revokedSet is a NodeCertCheck over a set of revoked node names.
type revokedSet struct {
	mu      sync.Mutex
	revoked map[string]bool
	seen    []string
}

func (s *revokedSet) check(node string, cert *x509.Certificate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, node)
	if s.revoked[node] {
		return fmt.Errorf("certificate serial %x of node %s was revoked", cert.SerialNumber, node)
	}
	return nil
}

func TestWithNodeCertCheck(t *testing.T) {
	p, err := pki.Load(t.TempDir(), pki.Config{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	set := &revokedSet{revoked: map[string]bool{"pi-2": true}}
	authn := auth.NewAuthenticator(p.CAPool(), nil, auth.WithNodeCertCheck(set.check))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, err := authn.Authenticate(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		io.WriteString(w, user.Name+" "+user.Role)
	}))
	srv.TLS = p.ServingTLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)

	tests := []struct {
		name     string
		cfg      *tls.Config
		wantCode int
		want     string
	}{
		{"good node", clientCert(t, p, "system:node:pi-1", "system:nodes"), 200, "system:node:pi-1 node"},
		{"revoked node", clientCert(t, p, "system:node:pi-2", "system:nodes"), 401, "of node pi-2 was revoked"},
		{"admin not checked", clientCert(t, p, "admin", "system:masters"), 200, "admin admin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := callVersion(t, srv.URL, tc.cfg, "")
			if code != tc.wantCode || !strings.Contains(body, tc.want) {
				t.Fatalf("got %d %q, want %d containing %q", code, body, tc.wantCode, tc.want)
			}
		})
	}
	set.mu.Lock()
	defer set.mu.Unlock()
	if got := strings.Join(set.seen, ","); got != "pi-1,pi-2" {
		t.Errorf("check called for %q, want only the node identities \"pi-1,pi-2\"", got)
	}
}
