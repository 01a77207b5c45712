package apiserver

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkCreateConfigMaps32Clients measures ConfigMap creates through
// the whole stack (TLS, authn, authz, admission, SQLite with fsync) from 32
// concurrent clients, each with its own connection:
//
//	go test -run XXX -bench CreateConfigMaps32Clients -benchtime 1000x ./server/
func BenchmarkCreateConfigMaps32Clients(b *testing.B) {
	for _, proto := range []string{"http1", "http2"} {
		b.Run(proto, func(b *testing.B) {
			benchCreates(b, newTestEnv(b), proto, "admin-token")
		})
	}
}

// benchCreates creates b.N ConfigMaps as token from 32 clients.
func benchCreates(b *testing.B, e *testEnv, proto, token string) {
	clients := make([]*http.Client, 32)
	for i := range clients {
		clients[i] = benchClient(e, proto == "http2")
	}
	var next, failures atomic.Int64
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func(c *http.Client) {
			defer wg.Done()
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				if err := createCM(e, c, fmt.Sprintf("bench-%d", i), token); err != nil {
					failures.Add(1)
					b.Error(err)
					return
				}
			}
		}(c)
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
	if failures.Load() > 0 {
		b.Fatalf("%d creates failed", failures.Load())
	}
}

// benchClient is one client with its own connection to the test server.
func benchClient(e *testEnv, h2 bool) *http.Client {
	base := e.srv.Client().Transport.(*http.Transport)
	tr := &http.Transport{TLSClientConfig: base.TLSClientConfig.Clone(), MaxConnsPerHost: 1, ForceAttemptHTTP2: h2}
	if !h2 {
		tr.TLSClientConfig.NextProtos = []string{"http/1.1"}
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &http.Client{Transport: tr}
}

func createCM(e *testEnv, c *http.Client, name, token string) error {
	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","labels":{"app":"bench"}},"data":{"key":"value"}}`)
	hr, err := http.NewRequest("POST", e.srv.URL+cmPath, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(hr)
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("create %s: got HTTP %d, want 201: %s", name, resp.StatusCode, data)
	}
	return nil
}
