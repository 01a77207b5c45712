package apiserver

import (
	"net/http"
	"testing"
)

// FuzzAcceptsGzip: any Accept-Encoding header is read without a panic,
// and "gzip" alone always asks for gzip.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "gzip;q=0", "br, gzip;q=0.5", ";;,,q=", "gzip;q=NaN", "GZIP ; q = 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, enc string) {
		r := &http.Request{Header: http.Header{"Accept-Encoding": {enc}}}
		acceptsGzip(r)
		r.Header.Set("Accept-Encoding", "gzip")
		if !acceptsGzip(r) {
			t.Fatal("gzip not accepted")
		}
	})
}
