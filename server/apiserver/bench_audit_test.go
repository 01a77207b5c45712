package apiserver

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bramble-edge/bramble/server/audit"
)

// BenchmarkAuditGets measures GETs of one ConfigMap through the whole
// stack (TLS, authn, authz, the cache) from 32 clients, without an audit
// log and with one (a file, at Metadata and at RequestResponse level):
//
//	go test -run '^$' -bench AuditGets -benchtime 20000x ./server/apiserver/
func BenchmarkAuditGets(b *testing.B) {
	for _, mode := range []string{"off", "metadata", "requestresponse"} {
		b.Run(mode, func(b *testing.B) {
			e := newTestEnv(b)
			if err := createCM(e, e.client, "one", "admin-token"); err != nil {
				b.Fatal(err)
			}
			if mode != "off" {
				e.srv.Config.Handler = auditedAPI(b, e, mode)
			}
			clients := make([]*http.Client, 32)
			for i := range clients {
				clients[i] = benchClient(e, false)
			}
			b.ResetTimer()
			runGets(b, e, clients)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
		})
	}
}

// auditedAPI wraps the API in an audit log file of the given level.
func auditedAPI(b *testing.B, e *testEnv, mode string) http.Handler {
	policy := audit.DefaultPolicy()
	if mode == "requestresponse" {
		var err error
		policy, err = audit.DecodePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n"))
		if err != nil {
			b.Fatal(err)
		}
	}
	f, err := audit.OpenFile(audit.FileConfig{Path: filepath.Join(b.TempDir(), "audit.log")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return audit.NewLogger(policy, f, nil, nil).Handler(e.api)
}

func runGets(b *testing.B, e *testEnv, clients []*http.Client) {
	var next, failures atomic.Int64
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func(c *http.Client) {
			defer wg.Done()
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				if err := getCM(e, c); err != nil {
					failures.Add(1)
					b.Error(err)
					return
				}
			}
		}(c)
	}
	wg.Wait()
	if failures.Load() > 0 {
		b.Fatalf("%d gets failed", failures.Load())
	}
}

func getCM(e *testEnv, c *http.Client) error {
	hr, err := http.NewRequest("GET", e.srv.URL+cmPath+"/one", nil)
	if err != nil {
		return err
	}
	hr.Header.Set("Authorization", "Bearer admin-token")
	resp, err := c.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("get: got HTTP %d, want 200", resp.StatusCode)
	}
	return nil
}
