package join_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/pki"
)

func joinNode(t testing.TB, c *cluster, token, node string) (*nodejoin.Credentials, error) {
	t.Helper()
	return nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: c.srv.URL, Token: token, NodeName: node,
		NodePassword: machinePassword(node)})
}

// machinePassword is the node password of the test's machine that joins
// as node: joining again under that name is that machine re-joining.
func machinePassword(node string) string { return "pw-" + node + "-" + strings.Repeat("m", 32) }

func mustJoin(t testing.TB, c *cluster, token, node string) *nodejoin.Credentials {
	t.Helper()
	creds, err := joinNode(t, c, token, node)
	if err != nil {
		t.Fatalf("join %s: %v", node, err)
	}
	return creds
}

func nodeTLS(t testing.TB, creds *nodejoin.Credentials) *tls.Config {
	t.Helper()
	cfg, err := creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestJoinGivesANodeIdentity(t *testing.T) {
	c := newCluster(t)
	c.createNode("pi-1")
	c.createNode("pi-2")
	creds := mustJoin(t, c, c.newToken(0), "pi-1")
	if got := c.seen(); !slices.Equal(got, []string{"POST /api/v1/nodes", "POST /api/v1/nodes", "GET /cacerts", "POST /v1-bramble/join"}) {
		t.Errorf("requests: got %q, want the two node creates, GET /cacerts, POST /v1-bramble/join", got)
	}
	if !slices.Equal(creds.MQTTAddresses, []string{"mqtts://127.0.0.1:8883"}) {
		t.Errorf("MQTT addresses: got %q, want [mqtts://127.0.0.1:8883]", creds.MQTTAddresses)
	}
	cert, err := creds.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	if cert.Subject.CommonName != "system:node:pi-1" || !slices.Equal(cert.Subject.Organization, []string{"system:nodes"}) {
		t.Errorf("subject: got %s, want CN=system:node:pi-1, O=system:nodes", cert.Subject)
	}
	if d := time.Until(cert.NotAfter); d < 364*24*time.Hour || d > 366*24*time.Hour {
		t.Errorf("validity: got %s left, want about one year", d)
	}

	// The authenticator maps the certificate to the node identity.
	req, _ := http.NewRequest(http.MethodGet, "/api/v1/nodes/pi-1", nil)
	req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	user, err := c.authn.Authenticate(req)
	if err != nil {
		t.Fatal(err)
	}
	if user.Role != auth.RoleNode || user.Node != "pi-1" || user.Name != "system:node:pi-1" {
		t.Errorf("user: got %+v, want role node, node pi-1", user)
	}

	// Through the API over mutual TLS: its own Node yes, another no.
	cfg := nodeTLS(t, creds)
	if code, body := c.call(cfg, http.MethodGet, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Errorf("GET own node: got %d %s, want 200", code, body)
	}
	if code, body := c.call(cfg, http.MethodGet, "/api/v1/nodes/pi-2", ""); code != http.StatusForbidden {
		t.Errorf("GET another node: got %d %s, want 403", code, body)
	}

	// Saved and loaded, the credentials still work.
	dir := filepath.Join(c.dataDir, "agent")
	if err := creds.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := nodejoin.LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := c.call(nodeTLS(t, back), http.MethodGet, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Errorf("GET own node with loaded credentials: got %d %s, want 200", code, body)
	}
}

// withSecret returns token with its secret replaced by a well-formed other one.
func withSecret(t testing.TB, token string) string {
	t.Helper()
	tok, err := nodejoin.ParseToken(token)
	if err != nil {
		t.Fatal(err)
	}
	tok.Secret = strings.Repeat("x", nodejoin.SecretLen)
	return tok.String()
}

func TestBadJoinsFailEachWithItsOwnError(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	other, err := pki.Load(t.TempDir(), pki.Config{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	good := c.newToken(0)
	tok, _ := nodejoin.ParseToken(good)
	foreign := nodejoin.Token{CAHash: other.CAHash(), ID: tok.ID, Secret: tok.Secret}.String()

	expiring, _ := nodejoin.ParseToken(c.newToken(time.Hour))
	info, err := c.tokens.Get(ctx, expiring.ID)
	if err != nil {
		t.Fatal(err)
	}
	deleted, _ := nodejoin.ParseToken(c.newToken(0))
	if err := c.tokens.Delete(ctx, deleted.ID); err != nil {
		t.Fatal(err)
	}
	never := nodejoin.Token{CAHash: c.pki.CAHash(), ID: "zzzzzz", Secret: tok.Secret}.String()
	c.clock.Advance(2 * time.Hour)
	c.seen()

	tests := []struct {
		name, token, node string
		kind              error
		msg               string
		requests          []string
	}{
		{"wrong CA hash", foreign, "pi-1", nodejoin.ErrCAHashMismatch,
			"join: the server's CA certificate does not match the token's CA hash (token expects sha256 " + other.CAHash() +
				", server has " + c.pki.CAHash() + "): wrong server or wrong token",
			[]string{"GET /cacerts"}},
		{"wrong secret", withSecret(t, good), "pi-1", nodejoin.ErrTokenSecret,
			"join: token " + tok.ID + ": secret does not match", []string{"GET /cacerts", "POST /v1-bramble/join"}},
		{"expired token", expiring.String(), "pi-1", nodejoin.ErrTokenExpired,
			"join: token " + expiring.ID + " expired at " + info.Expires.UTC().Format(time.RFC3339),
			[]string{"GET /cacerts", "POST /v1-bramble/join"}},
		{"deleted token", deleted.String(), "pi-1", nodejoin.ErrTokenNotFound,
			"join: token " + deleted.ID + " not found: deleted or never created", []string{"GET /cacerts", "POST /v1-bramble/join"}},
		{"unknown token", never, "pi-1", nodejoin.ErrTokenNotFound,
			"join: token zzzzzz not found: deleted or never created", []string{"GET /cacerts", "POST /v1-bramble/join"}},
		{"bad node name", good, "Pi_1", nodejoin.ErrInvalidNodeName,
			`join: node name "Pi_1": a lowercase RFC 1123 subdomain`, nil},
		{"malformed token", "K10abc::x.y", "pi-1", nodejoin.ErrMalformedToken,
			"join: malformed join token: CA hash has 3 characters, want 64", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			creds, err := joinNode(t, c, tc.token, tc.node)
			if creds != nil || !errors.Is(err, tc.kind) {
				t.Fatalf("got %v, %v; want an error of kind %v", creds, err, tc.kind)
			}
			t.Log(err)
			if !strings.HasPrefix(err.Error(), tc.msg) {
				t.Errorf("message:\n got %s\nwant %s", err, tc.msg)
			}
			if got := c.seen(); !slices.Equal(got, tc.requests) {
				t.Errorf("requests: got %q, want %q", got, tc.requests)
			}
		})
	}
	if c.registry.Valid(ctx, "pi-1", nil) {
		t.Errorf("a failed join left a certificate on record")
	}
}

// The server checks the node name itself, whatever the client does.
func TestServerRefusesBadNodeName(t *testing.T) {
	c := newCluster(t)
	tok, _ := nodejoin.ParseToken(c.newToken(0))
	body := `{"tokenID":"` + tok.ID + `","secret":"` + tok.Secret + `","nodeName":"Pi_1","csr":"x"}`
	code, answer := c.call(&tls.Config{RootCAs: c.pki.CAPool()}, http.MethodPost, nodejoin.JoinPath, body)
	if code != http.StatusUnprocessableEntity || !strings.Contains(answer, `"reason":"InvalidNodeName"`) ||
		!strings.Contains(answer, `node name \"Pi_1\"`) {
		t.Fatalf("got %d %s, want 422 InvalidNodeName naming the node name", code, answer)
	}
}
