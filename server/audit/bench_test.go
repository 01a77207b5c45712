package audit

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
)

// BenchmarkHandlerOverhead is the audit log's own cost per request: a
// handler that notes the user and request and answers a small JSON body,
// without the audit log, and with it writing to a file at Metadata and at
// RequestResponse level, from parallel goroutines:
//
//	go test -run '^$' -bench HandlerOverhead -benchmem ./server/audit/
func BenchmarkHandlerOverhead(b *testing.B) {
	body := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"one","namespace":"default"},"data":{"key":"value"}}`)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetUser(r.Context(), "admin", []string{"system:masters"})
		SetRequest(r.Context(), Request{Verb: "get", ResourceRequest: true, APIVersion: "v1",
			Resource: "configmaps", Namespace: "default", Name: "one"})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	for _, mode := range []string{"off", "metadata", "requestresponse"} {
		b.Run(mode, func(b *testing.B) {
			h := http.Handler(next)
			if mode != "off" {
				p := DefaultPolicy()
				if mode == "requestresponse" {
					p = &Policy{Rules: []Rule{{Level: LevelRequestResponse}}}
				}
				f, err := OpenFile(FileConfig{Path: filepath.Join(b.TempDir(), "audit.log")})
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				h = NewLogger(p, f, nil, nil).Handler(next)
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				r := httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps/one", nil)
				r.Header.Set("User-Agent", "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07")
				for pb.Next() {
					h.ServeHTTP(httptest.NewRecorder(), r)
				}
			})
		})
	}
}
