//go:build chaos

package chaos

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/join"
)

// TestJoinAbuse: with the real join token an impostor cannot take over a
// joined node's name (no password, a wrong one); bad tokens (wrong secret,
// unknown id, another CA, malformed) get no certificate; a flood of failed
// joins from one address is refused (401/403, then 429) without a 5xx,
// and does not stop a good node joining from another address, nor the
// owner re-joining with its password.
func TestJoinAbuse(t *testing.T) {
	t.Parallel()
	s := cluster.StartServer(t)
	raw := cluster.JoinToken(t, s)
	tok, err := join.ParseToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	owner := mustJoin(t, s, raw, "pi-owner", "")
	refused := refuseBadJoins(t, s, raw)
	if code := nodeAPI(t, s, owner); code == http.StatusUnauthorized || code == http.StatusForbidden {
		t.Fatalf("the owner's certificate after the takeover attempts: got %d", code)
	}
	wrongSecret := join.Token{CAHash: tok.CAHash, ID: tok.ID, Secret: fmt.Sprintf("%032x", 7)}.String()
	codes := floodJoins(t, s, pick(200, 2000), wrongSecret, raw)
	for code := range codes {
		if code < 400 || code > 499 || codes[http.StatusTooManyRequests] == 0 {
			t.Fatalf("flood of failed joins: got codes %v (0: no answer), want 401/403 then 429, nothing else", codes)
		}
	}
	begin := time.Now()
	mustJoin(t, s, raw, "pi-good", "")
	good := time.Since(begin)
	mustJoin(t, s, raw, "pi-owner", owner.NodePassword)
	figure("join-abuse: refused=%d/%d takeover refused, flood=%d failed joins from one address (429=%d, 2xx=0, 5xx=0), good join after it %s",
		refused, refused, pick(200, 2000), codes[http.StatusTooManyRequests], good.Round(time.Millisecond))
}

// refuseBadJoins tries takeovers of pi-owner and joins with bad tokens;
// each must fail with its error and no credentials. It returns how many
// were tried.
func refuseBadJoins(t *testing.T, s *cluster.Server, raw string) int {
	t.Helper()
	tok, err := join.ParseToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := join.NewNodePassword()
	wrongSecret := join.Token{CAHash: tok.CAHash, ID: tok.ID, Secret: fmt.Sprintf("%032x", 7)}.String()
	unknownID := join.Token{CAHash: tok.CAHash, ID: "abcdef", Secret: tok.Secret}.String()
	otherCA := join.Token{CAHash: fmt.Sprintf("%064x", 1), ID: tok.ID, Secret: tok.Secret}.String()
	attempts := []struct {
		what, token, node, password string
		want                        error
	}{
		{"takeover without a password", raw, "pi-owner", "", join.ErrNodePassword},
		{"takeover with another password", raw, "pi-owner", pw, join.ErrNodePassword},
		{"wrong secret", wrongSecret, "pi-x", "", join.ErrTokenSecret},
		{"unknown token id", unknownID, "pi-x", "", join.ErrTokenNotFound},
		{"another CA's hash", otherCA, "pi-x", "", join.ErrCAHashMismatch},
		{"malformed token", "K10garbage", "pi-x", "", join.ErrMalformedToken},
	}
	for _, a := range attempts {
		creds, err := tryJoin(s, a.token, a.node, a.password)
		if creds != nil || !errors.Is(err, a.want) {
			t.Fatalf("%s: got credentials %t, error %v; want none and %v", a.what, creds != nil, err, a.want)
		}
	}
	return len(attempts)
}

func tryJoin(s *cluster.Server, token, node, password string) (*join.Credentials, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return join.Join(ctx, join.JoinConfig{ServerURL: s.URL(), Token: token, NodeName: node, NodePassword: password})
}

func mustJoin(t *testing.T, s *cluster.Server, token, node, password string) *join.Credentials {
	t.Helper()
	creds, err := tryJoin(s, token, node, password)
	if err != nil {
		t.Fatalf("join as %s: %v", node, err)
	}
	return creds
}

// nodeAPI is the code the API answers the node's certificate with.
func nodeAPI(t *testing.T, s *cluster.Server, creds *join.Credentials) int {
	t.Helper()
	tc, err := creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	return cluster.NewClientTLS(t, s.URL(), tc).Do(http.MethodGet, "/api/v1/nodes/"+creds.NodeName, "", nil).Code
}

// floodJoins posts n failing joins from 127.0.0.2, 16 at a time, and
// counts the answers by status code (0: the request failed): every other
// one a new node with a bad token, the rest a takeover of pi-owner with
// the good token and a wrong password.
func floodJoins(t *testing.T, s *cluster.Server, n int, badToken, goodToken string) map[int]int {
	t.Helper()
	bad, _ := join.ParseToken(badToken)
	good, _ := join.ParseToken(goodToken)
	csr := floodCSR(t)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 16}} // an attacker checks nothing
	var mu sync.Mutex
	codes := map[int]int{}
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			pw, _ := join.NewNodePassword()
			req := join.Request{TokenID: bad.ID, Secret: bad.Secret, NodeName: fmt.Sprintf("pi-flood-%d", i), CSR: csr, NodePassword: pw}
			if i%2 == 1 {
				req.TokenID, req.Secret, req.NodeName = good.ID, good.Secret, "pi-owner"
			}
			body, _ := json.Marshal(req)
			code := 0
			if resp, err := client.Post(s.URL()+join.JoinPath, "application/json", bytes.NewReader(body)); err == nil {
				code = resp.StatusCode
				resp.Body.Close()
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return codes
}

// floodCSR is a well-formed CSR, so the flood's joins fail on the token.
func floodCSR(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "flood"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}
