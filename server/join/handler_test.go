package join_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
)

func TestFailedJoinsAreRateLimited(t *testing.T) {
	c := newCluster(t, func(cfg *join.HandlerConfig) {
		cfg.FailureBurst, cfg.FailureRefill = 3, time.Minute
	})
	good := c.newToken(0)
	// Successful joins cost nothing.
	for i := range 5 {
		mustJoin(t, c, good, "pi-"+string(rune('a'+i)))
	}
	bad := withSecret(t, good)
	for i := range 3 {
		if _, err := joinNode(t, c, bad, "pi-x"); !errors.Is(err, nodejoin.ErrTokenSecret) {
			t.Fatalf("failed attempt %d: got %v, want ErrTokenSecret", i+1, err)
		}
	}
	_, err := joinNode(t, c, good, "pi-x")
	if !errors.Is(err, nodejoin.ErrRateLimited) || !strings.Contains(err.Error(), "too many failed join attempts from 127.0.0.1; try again in 60s") {
		t.Fatalf("after 3 failures: got %v, want ErrRateLimited asking to wait 60s", err)
	}
	c.clock.Advance(time.Minute)
	mustJoin(t, c, good, "pi-x")
}

func TestHandlerRefusesMalformedRequests(t *testing.T) {
	c := newCluster(t, func(cfg *join.HandlerConfig) { cfg.MaxBodyBytes = 1024 })
	plain := &tls.Config{RootCAs: c.pki.CAPool()}
	tests := []struct {
		name, method, path, body string
		wantCode                 int
		want                     string
	}{
		{"GET join", http.MethodGet, nodejoin.JoinPath, "", 405, "GET is not supported"},
		{"POST cacerts", http.MethodPost, nodejoin.CACertsPath, "{}", 405, "POST is not supported"},
		{"too large", http.MethodPost, nodejoin.JoinPath, `{"csr":"` + strings.Repeat("x", 2000) + `"}`, 413, "larger than 1024 bytes"},
		{"not JSON", http.MethodPost, nodejoin.JoinPath, "tokenID=abc", 400, "request body"},
		{"unknown field", http.MethodPost, nodejoin.JoinPath, `{"tokenID":"abc123","token":"x"}`, 400, `unknown field \"token\"`},
		{"missing secret", http.MethodPost, nodejoin.JoinPath, `{"tokenID":"abc123"}`, 400, "secret: required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := c.call(plain, tc.method, tc.path, tc.body)
			if code != tc.wantCode || !strings.Contains(body, tc.want) {
				t.Fatalf("got %d %s, want %d containing %q", code, body, tc.wantCode, tc.want)
			}
		})
	}
	code, body := c.call(plain, http.MethodGet, nodejoin.CACertsPath, "")
	if code != http.StatusOK || body != string(c.pki.CACertPEM()) {
		t.Fatalf("GET /cacerts: got %d %q, want 200 and the CA PEM", code, body)
	}
}

func TestHandlerWantsJSON(t *testing.T) {
	c := newCluster(t)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.pki.CAPool()}}}
	defer client.CloseIdleConnections()
	resp, err := client.Post(c.srv.URL+nodejoin.JoinPath, "text/plain", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain body: got %d, want 415", resp.StatusCode)
	}
}

func TestHandlerNeedsItsParts(t *testing.T) {
	if _, err := join.Handler(join.HandlerConfig{}); err == nil || !strings.Contains(err.Error(), "required") {
		t.Fatalf("empty config: got %v, want an error naming what is required", err)
	}
}

// A datastore that fails answers 500, not a token error, and does not
// count against the caller.
func TestStoreFailureIsAServerError(t *testing.T) {
	c := newCluster(t)
	token := c.newToken(0)
	c.store.Close()
	_, err := nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: c.srv.URL, Token: token, NodeName: "pi-1"})
	if !errors.Is(err, nodejoin.ErrRejected) || !strings.Contains(err.Error(), "server answered 500") {
		t.Fatalf("got %v, want ErrRejected for a 500 answer", err)
	}
}
